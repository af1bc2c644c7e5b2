package dev.shaper.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a whole one-partition topic as a {@code read_committed} consumer sees it, without a consumer group. */
public final class CommittedRecords {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long to read on once {@code atLeast} records are there: whatever comes after them is not missed. */
    private static final Duration SETTLE = Duration.ofSeconds(1);

    private CommittedRecords() {
    }

    /**
     * The committed records of partition 0 of {@code topic}, from its beginning, read until at least {@code atLeast}
     * are there (within a minute) and a second more.
     */
    public static List<ConsumerRecord<byte[], byte[]>> read(String bootstrapServers, String topic, int atLeast) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Await.until(atLeast + " records in " + topic, WAIT, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= atLeast;
            });
            consumer.poll(SETTLE).forEach(records::add);
        }
        return records;
    }
}
