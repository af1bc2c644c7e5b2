package dev.shaper.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts the committed records of some topics ({@code read_committed}, from the beginning, no group), on its own
 * thread, without keeping them: for runs with more records than a test should hold ids of.
 */
final class TopicCounter implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Thread poller;
    private volatile boolean running = true;
    private volatile Throwable failure;

    TopicCounter(String bootstrapServers, String... topics) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            counts.put(topic, new AtomicLong());
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        poller = new Thread(this::poll, "topic-counter");
        poller.setDaemon(true);
        poller.start();
    }

    private void poll() {
        try {
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (TopicPartition tp : records.partitions()) {
                    List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
                    counts.get(tp.topic()).addAndGet(list.size());
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

    long count(String topic) {
        if (failure != null) {
            throw new IllegalStateException("the counting consumer failed", failure);
        }
        return counts.get(topic).get();
    }

    long total() {
        return counts.keySet().stream().mapToLong(this::count).sum();
    }

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
