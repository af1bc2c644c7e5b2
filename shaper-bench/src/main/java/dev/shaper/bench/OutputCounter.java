package dev.shaper.bench;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts, on its own thread, the committed records an application writes: a {@code read_committed} consumer
 * on every partition of the output topic (and of the rejected topic, if any), from the beginning. Under
 * exactly-once a record becomes visible only when the transaction that wrote it (together with the input
 * offsets) commits, so the moment the count reaches the input size is the moment the last output record
 * was committed.
 *
 * <p>For one shaped record in {@link #SAMPLE_EVERY} it also reads the {@link ShaperHeaders#QUEUED_MS} header: a
 * value above 0 proves the record waited in the schedule store. (A record queued and released within the same
 * millisecond would show 0, so the queued count is a lower bound.) Only a sample, because this consumer shares
 * the machine with the applications it measures: looking up a header decodes the names of the record's headers,
 * a cost the pass-through's output (which has none) would not impose, and that would slow the shaper's runs.
 */
final class OutputCounter implements AutoCloseable {

    private static final int HISTOGRAM_MS = 60_000;
    /** One shaped record in this many has its queue time read. */
    static final int SAMPLE_EVERY = 16;

    private final String outputTopic;
    private final long expected;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch complete = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Throwable failure;

    private volatile long shaped;
    private volatile long rejected;
    private volatile long firstOutputNanos;
    private volatile long completeNanos;
    private long sampled;
    private long queued;
    private long queuedMsSum;
    private long queuedMsMax;
    private final long[] queuedMsHistogram = new long[HISTOGRAM_MS + 1];

    /**
     * @param rejectedTopic null for an application without one
     * @param expected      records after which the count is complete
     */
    OutputCounter(String bootstrapServers, String outputTopic, String rejectedTopic, int partitions, long expected) {
        this.outputTopic = outputTopic;
        this.expected = expected;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> assignment = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assignment.add(new TopicPartition(outputTopic, p));
            if (rejectedTopic != null) {
                assignment.add(new TopicPartition(rejectedTopic, p));
            }
        }
        consumer.assign(assignment);
        consumer.seekToBeginning(assignment);
        this.thread = new Thread(this::run, "bench-output-counter");
        this.thread.setDaemon(true);
    }

    /** Starts counting and returns once the consumer has fetched its start positions. */
    void start() throws InterruptedException {
        thread.start();
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the output counter did not get ready within 60 s", failure);
        }
    }

    /** Waits up to {@code timeoutMs} for the count to reach the expected number; true if it did. */
    boolean awaitComplete(long timeoutMs) throws InterruptedException {
        return complete.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private void run() {
        try {
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(50));
                long now = System.nanoTime();
                ready.countDown();
                if (records.isEmpty()) {
                    continue;
                }
                long shapedNow = shaped;
                long rejectedNow = rejected;
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    if (record.topic().equals(outputTopic)) {
                        if (shapedNow++ % SAMPLE_EVERY == 0) {
                            sampled++;
                            countQueued(record.headers().lastHeader(ShaperHeaders.QUEUED_MS));
                        }
                    } else {
                        rejectedNow++;
                    }
                }
                if (firstOutputNanos == 0) {
                    firstOutputNanos = now;
                }
                shaped = shapedNow;
                rejected = rejectedNow;
                if (completeNanos == 0 && shapedNow + rejectedNow >= expected) {
                    completeNanos = now;
                    complete.countDown();
                }
            }
        } catch (org.apache.kafka.common.errors.WakeupException e) {
            // closing
        } catch (Throwable t) {
            failure = t;
            ready.countDown();
            complete.countDown();
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void countQueued(Header header) {
        if (header == null) {
            return;
        }
        long ms = Long.parseLong(new String(header.value(), StandardCharsets.UTF_8));
        if (ms > 0) {
            queued++;
            queuedMsSum += ms;
            queuedMsMax = Math.max(queuedMsMax, ms);
            queuedMsHistogram[(int) Math.min(ms, HISTOGRAM_MS)]++;
        }
    }

    long shaped() {
        return shaped;
    }

    long rejected() {
        return rejected;
    }

    /** {@link System#nanoTime()} when the first output was seen; 0 if none yet. */
    long firstOutputNanos() {
        return firstOutputNanos;
    }

    /** {@link System#nanoTime()} when the count reached the expected number; 0 if it has not. */
    long completeNanos() {
        return completeNanos;
    }

    Throwable failure() {
        return failure;
    }

    /** Statistics of the records that waited; read them after {@link #close()}. */
    QueueStats queueStats() {
        return new QueueStats(sampled, queued, queued == 0 ? 0 : (double) queuedMsSum / queued, percentile(0.50),
                percentile(0.99), queuedMsMax);
    }

    private long percentile(double fraction) {
        long rank = (long) Math.ceil(fraction * queued);
        long seen = 0;
        for (int ms = 0; ms <= HISTOGRAM_MS; ms++) {
            seen += queuedMsHistogram[ms];
            if (seen >= rank && rank > 0) {
                return ms;
            }
        }
        return 0;
    }

    /** Stops the consumer thread and waits for it, which makes its statistics safe to read. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(30_000);
    }

    /**
     * @param sampled  shaped records whose queue time was read (one in {@link #SAMPLE_EVERY})
     * @param queued   of those, the ones whose {@code shaper.queued.ms} was above 0
     * @param meanMs   their mean wait
     * @param p50Ms    median wait (capped at 60 s)
     * @param p99Ms    99th percentile (capped at 60 s)
     * @param maxMs    longest wait (of the sample)
     */
    record QueueStats(long sampled, long queued, double meanMs, long p50Ms, long p99Ms, long maxMs) {
    }
}
