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
 * Counts what the shaper has committed to its shaped and rejected topics, rejected records per
 * {@code shaper.reason}, for the live view. Reads both topics from the beginning with a
 * {@code read_committed} consumer on its own thread; it has no group, so it commits nothing.
 */
final class TopicMonitor implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String shapedTopic;
    private final LongAdder shaped = new LongAdder();
    private final Map<String, LongAdder> rejectedByReason = new ConcurrentHashMap<>();
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
                    } else {
                        rejectedByReason.computeIfAbsent(reason(r), k -> new LongAdder()).increment();
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
        Header h = r.headers().lastHeader(ShaperHeaders.REASON);
        return h == null || h.value() == null ? "(no reason)" : new String(h.value(), StandardCharsets.UTF_8);
    }

    long shaped() {
        throwIfFailed();
        return shaped.sum();
    }

    SortedMap<String, Long> rejectedByReason() {
        throwIfFailed();
        SortedMap<String, Long> copy = new TreeMap<>();
        rejectedByReason.forEach((reason, count) -> copy.put(reason, count.sum()));
        return copy;
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
