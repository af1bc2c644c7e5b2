package dev.shaper.internals.rules;

import dev.shaper.internals.kafka.GrouplessConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reading the rules topic from its beginning, as the shaper's instances and the {@code rules} command do: a plain
 * consumer outside any consumer group (every reader needs every rule, and a group would rebalance), assigned every
 * partition, reading committed records only.
 */
public final class RulesTopicLog {

    private RulesTopicLog() {
    }

    /** The consumer settings for reading the rules topic, from the client settings to reach the cluster. */
    public static Map<String, Object> consumerSettings(Map<String, ?> clientSettings, String clientId) {
        // A missing topic is an error there too: one created with the broker's defaults would not be compacted.
        Map<String, Object> settings = GrouplessConsumer.settings(clientSettings, clientId);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // A rule published in an aborted transaction never applies.
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return settings;
    }

    /** A consumer of byte arrays with {@code settings} (see {@link #consumerSettings}). */
    public static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> settings) {
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Assigns every partition of {@code topic} to {@code consumer}, each at its beginning.
     *
     * @throws MissingTopicException when the cluster has no such topic
     */
    public static List<TopicPartition> assignFromBeginning(KafkaConsumer<byte[], byte[]> consumer, String topic,
                                                           Duration timeout) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
        if (partitions == null || partitions.isEmpty()) {
            throw new MissingTopicException(topic);
        }
        List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        consumer.assign(assigned);
        consumer.seekToBeginning(assigned);
        return assigned;
    }

    /**
     * Hands {@code sink} every record of the assigned partitions up to their ends as they are now.
     *
     * @throws TimeoutException when the end is not reached within {@code timeout}
     */
    public static void readToEnd(KafkaConsumer<byte[], byte[]> consumer, Duration timeout,
                                 Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), timeout);
        while (!reached(consumer, ends)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("the rules topic was not read to its end within " + timeout.toMillis()
                        + " ms");
            }
            consumer.poll(Duration.ofNanos(Math.min(left, 100_000_000L))).forEach(sink);
        }
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The rules topic does not exist. */
    public static final class MissingTopicException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingTopicException(String topic) {
            super("the rules topic " + topic + " does not exist; create it compacted (cleanup.policy=compact), one"
                    + " partition is enough");
        }
    }
}
