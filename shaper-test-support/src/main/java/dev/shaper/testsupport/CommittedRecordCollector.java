package dev.shaper.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the shaper's output and rejected topics from the beginning with a {@code read_committed} consumer,
 * on its own thread, and keeps every record as a {@link CollectedRecord} stamped with the time its poll
 * returned. Running continuously, independent of what the test thread does, keeps those arrival times
 * honest: a record is stamped within one poll of the moment its transaction became visible.
 *
 * <p>The consumer has no group (it assigns all partitions itself), so it commits nothing and leaves no trace.
 */
public final class CommittedRecordCollector implements AutoCloseable {

    /** Upper bound of the broker-side wait of a fetch; the arrival stamps are no coarser than this. */
    static final int FETCH_MAX_WAIT_MS = 10;
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String outputTopic;
    private final Thread poller;
    private final List<CollectedRecord> records = new ArrayList<>();
    private volatile boolean running = true;
    private volatile Throwable failure;

    private CommittedRecordCollector(String bootstrapServers, String outputTopic, String rejectedTopic) {
        this.outputTopic = outputTopic;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS),
                new StringDeserializer(), new ByteArrayDeserializer());
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(outputTopic, rejectedTopic)) {
                consumer.partitionsFor(topic, Duration.ofSeconds(30))
                        .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        this.poller = new Thread(this::pollLoop, "committed-record-collector");
        this.poller.setDaemon(true);
    }

    /** Starts reading both topics from the beginning. The topics must exist. */
    public static CommittedRecordCollector start(String bootstrapServers, String outputTopic, String rejectedTopic) {
        CommittedRecordCollector collector = new CommittedRecordCollector(bootstrapServers, outputTopic,
                rejectedTopic);
        collector.poller.start();
        return collector;
    }

    private void pollLoop() {
        try {
            while (running) {
                ConsumerRecords<String, byte[]> polled = consumer.poll(POLL_TIMEOUT);
                long arrival = System.nanoTime();
                if (polled.isEmpty()) {
                    continue;
                }
                List<CollectedRecord> batch = new ArrayList<>(polled.count());
                for (ConsumerRecord<String, byte[]> r : polled) {
                    batch.add(toCollected(r, arrival));
                }
                synchronized (records) {
                    records.addAll(batch);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (Throwable t) {
            failure = t;
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private CollectedRecord toCollected(ConsumerRecord<String, byte[]> r, long arrival) {
        CollectedRecord.Topic topic = r.topic().equals(outputTopic)
                ? CollectedRecord.Topic.OUTPUT : CollectedRecord.Topic.REJECTED;
        RecordId id = null;
        String malformed = null;
        try {
            id = RecordId.parse(r.value());
        } catch (IllegalArgumentException e) {
            malformed = e.getMessage();
        }
        Long appendedAt = r.timestampType() == TimestampType.LOG_APPEND_TIME ? r.timestamp() : null;
        return new CollectedRecord(topic, r.key(), id, arrival, appendedAt, number(r, OutputHeaders.RELEASED_MS),
                number(r, OutputHeaders.QUEUED_MS), header(r, OutputHeaders.REASON),
                number(r, OutputHeaders.RETRY_AFTER_MS), malformed);
    }

    /** A header holding a decimal number, or null if it is absent or not a number. */
    private static Long number(ConsumerRecord<?, ?> r, String name) {
        String text = header(r, name);
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** Everything read so far, in the order read (which, per partition, is offset order). */
    public List<CollectedRecord> snapshot() {
        rethrowFailure();
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** How many records have been read from the output topic so far. */
    public int outputCount() {
        return (int) snapshot().stream().filter(CollectedRecord::isOutput).count();
    }

    /** How many of {@code ids} have been read so far, from either topic. */
    public int accountedFor(Collection<RecordId> ids) {
        Set<RecordId> wanted = ids instanceof Set<RecordId> s ? s : new HashSet<>(ids);
        Set<RecordId> seen = new HashSet<>();
        for (CollectedRecord r : snapshot()) {
            if (r.id() != null && wanted.contains(r.id())) {
                seen.add(r.id());
            }
        }
        return seen.size();
    }

    /** Waits until every one of {@code ids} has been read from either topic. */
    public void awaitAccountedFor(Collection<RecordId> ids, Duration timeout) {
        Set<RecordId> wanted = Set.copyOf(ids);
        Await.until(() -> accountedFor(wanted) + " of " + wanted.size() + " ids read back",
                timeout, () -> accountedFor(wanted) == wanted.size());
    }

    /** Waits until the records read so far satisfy {@code condition}. */
    public void await(String what, Duration timeout, Predicate<List<CollectedRecord>> condition) {
        Await.until(() -> what + " (" + snapshot().size() + " records read)", timeout,
                () -> condition.test(snapshot()));
    }

    private void rethrowFailure() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("the collector's consumer failed", t);
        }
    }

    /** Stops the poller thread and closes the consumer. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            poller.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
