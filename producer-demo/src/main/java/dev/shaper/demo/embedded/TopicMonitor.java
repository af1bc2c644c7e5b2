package dev.shaper.demo.embedded;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts what the shaper has committed to its shaped and rejected topics: shaped records, also by their release
 * time, and rejected records per {@code shaper.reason} and {@link RejectionStage}. Reads both topics from the
 * beginning with a {@code read_committed} consumer on its own thread; it has no group, so it commits nothing.
 */
final class TopicMonitor implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String shapedTopic;
    private final LongAdder shaped = new LongAdder();
    // Each rejected record counts in one of the two, so that a reading of both is consistent without a lock
    private final Map<String, LongAdder> rejectedAtArrival = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> rejectedWhileQueued = new ConcurrentHashMap<>();
    private final ReleaseHistogram released = new ReleaseHistogram();
    private final Thread poller;
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    TopicMonitor(String bootstrapServers, String shapedTopic, String rejectedTopic) {
        this.shapedTopic = shapedTopic;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.CLIENT_ID_CONFIG, "shaper-demo-monitor"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(shapedTopic, rejectedTopic)) {
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.poller = new Thread(this::pollLoop, "shaper-demo-monitor");
        poller.setDaemon(true);
        poller.start();
    }

    private void pollLoop() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.topic().equals(shapedTopic)) {
                        shaped.increment();
                        released.add(releasedMs(r));
                    } else {
                        boolean queued = RejectionStage.ofQueuedMs(text(r, ShaperHeaders.QUEUED_MS))
                                == RejectionStage.WHILE_QUEUED;
                        (queued ? rejectedWhileQueued : rejectedAtArrival)
                                .computeIfAbsent(reason(r), k -> new LongAdder()).increment();
                    }
                }
            }
        } catch (WakeupException closing) {
            // close() ends the loop this way
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private static String reason(ConsumerRecord<?, ?> r) {
        String reason = text(r, ShaperHeaders.REASON);
        return reason == null ? "(no reason)" : reason;
    }

    private static String text(ConsumerRecord<?, ?> r, String header) {
        Header h = r.headers().lastHeader(header);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /**
     * When the shaper released a shaped record: its {@link ShaperHeaders#RELEASED_MS} (the demo has the shaper add
     * it), else the broker's append time, which the shaped topic records.
     */
    private static long releasedMs(ConsumerRecord<?, ?> r) {
        String released = text(r, ShaperHeaders.RELEASED_MS);
        if (released != null) {
            try {
                return Long.parseLong(released);
            } catch (NumberFormatException e) {
                // not the shaper's: the append time below is the next best clock
            }
        }
        return r.timestamp();
    }

    long shaped() {
        throwIfFailed();
        return shaped.sum();
    }

    /**
     * The rejected records so far.
     *
     * @param byReason    per {@code shaper.reason}
     * @param whileQueued of those, the ones rejected after they had waited in a queue, per reason
     */
    record Rejections(SortedMap<String, Long> byReason, SortedMap<String, Long> whileQueued) {
    }

    /** The rejected records so far, by reason and stage. */
    Rejections rejections() {
        throwIfFailed();
        SortedMap<String, Long> whileQueued = snapshot(rejectedWhileQueued);
        SortedMap<String, Long> byReason = snapshot(rejectedAtArrival);
        whileQueued.forEach((reason, count) -> byReason.merge(reason, count, Long::sum));
        return new Rejections(byReason, whileQueued);
    }

    private static SortedMap<String, Long> snapshot(Map<String, LongAdder> counts) {
        SortedMap<String, Long> copy = new TreeMap<>();
        counts.forEach((reason, count) -> copy.put(reason, count.sum()));
        return copy;
    }

    /**
     * The shaped records by release time, in whole seconds from {@code fromEpochMs}: see
     * {@link ReleaseHistogram#perSecond}. The shaper's promise, at most rate + 1 records of a key in any one second,
     * holds for each of these seconds; the records' arrival here, after a transaction's commit, is up to a commit
     * interval later and bunched.
     */
    long[] releasedPerSecond(long fromEpochMs, int seconds) {
        throwIfFailed();
        return released.perSecond(fromEpochMs, seconds);
    }

    private void throwIfFailed() {
        if (failure != null) {
            throw new IllegalStateException("the topic monitor's consumer failed: " + failure, failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        poller.join(10_000);
    }
}
