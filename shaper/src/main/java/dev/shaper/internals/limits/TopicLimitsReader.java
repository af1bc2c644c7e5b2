package dev.shaper.internals.limits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the {@link TopicLimits} from the brokers: each topic's {@code max.message.bytes} and
 * {@code compression.type}, against the producer's {@code max.request.size} and {@code compression.type}, and the
 * timestamps it takes. A changelog topic that does not exist yet is taken as Kafka Streams will create it.
 */
public final class TopicLimitsReader {

    private static final Logger LOG = LoggerFactory.getLogger(TopicLimitsReader.class);

    /**
     * The producer's settings that bound a record.
     *
     * @param compressionType the producer's {@code compression.type}
     */
    public record Producer(int maxRequestSize, String compressionType) {
    }

    /**
     * How the shaper creates a changelog topic that does not exist yet.
     *
     * @param maxMessageBytes the {@code max.message.bytes} it sets
     */
    public record NewChangelog(long maxMessageBytes) {
    }

    private TopicLimitsReader() {
    }

    /**
     * @param changelogs the changelog topics of the shaper's stores
     * @throws ExecutionException       when a topic other than a changelog cannot be described
     * @throws TimeoutException         when the brokers do not answer within {@code timeoutMs}
     * @throws IllegalArgumentException when the rejected topic is compacted: it would refuse a rejected record
     *                                  without a key (and stop the task on every restart), and drop rejected
     *                                  records that share a key
     */
    public static TopicLimits read(Admin admin, long timeoutMs, Producer producer, String outputTopic,
                                   String rejectedTopic, List<String> changelogs, NewChangelog newChangelog)
            throws ExecutionException, TimeoutException, InterruptedException {
        return read(admin, timeoutMs, producer, outputTopic, rejectedTopic, null, changelogs, newChangelog);
    }

    /**
     * Like {@link #read(Admin, long, Producer, String, String, List, NewChangelog)}, with the shadow topic's limits.
     *
     * @param shadowTopic the shadow topic, or null for none
     * @throws IllegalArgumentException also when the shadow topic is compacted
     */
    public static TopicLimits read(Admin admin, long timeoutMs, Producer producer, String outputTopic,
                                   String rejectedTopic, String shadowTopic, List<String> changelogs,
                                   NewChangelog newChangelog)
            throws ExecutionException, TimeoutException, InterruptedException {
        List<String> topics = new ArrayList<>(List.of(outputTopic, rejectedTopic));
        if (shadowTopic != null) {
            topics.add(shadowTopic);
        }
        topics.addAll(changelogs);
        Map<String, KafkaFuture<Config>> futures = new LinkedHashMap<>();
        admin.describeConfigs(topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList())
                .values().forEach((resource, future) -> futures.put(resource.name(), future));
        Config output = futures.get(outputTopic).get(timeoutMs, TimeUnit.MILLISECONDS);
        Config rejected = futures.get(rejectedTopic).get(timeoutMs, TimeUnit.MILLISECONDS);
        if (compacted(rejected)) {
            throw new IllegalArgumentException("the rejected topic " + rejectedTopic + " has cleanup.policy "
                    + rejected.get(TopicConfig.CLEANUP_POLICY_CONFIG).value() + "; it must be delete: a compacted"
                    + " topic refuses a rejected record without a key and drops rejected records that share a key");
        }
        if (compacted(output)) {
            LOG.warn("The output topic {} is compacted: the broker keeps only the latest shaped record of each key,"
                    + " so a writer that falls behind misses the others", outputTopic);
        }

        SizeLimit producerLimit = SizeLimit.producer(producer.maxRequestSize());
        boolean producerCompresses = !"none".equals(producer.compressionType());
        SizeLimit stored = producerLimit;
        for (String changelog : changelogs) {
            try {
                Config config = futures.get(changelog).get(timeoutMs, TimeUnit.MILLISECONDS);
                stored = stored.min(limitOf(changelog, config, producerCompresses));
                if (!TimestampWindow.of(changelog, config).equals(TimestampWindow.ANY)) {
                    takeAnyTimestamp(admin, timeoutMs, changelog);
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                // Created by Kafka Streams with the shaper's settings: this size, and any timestamp.
                SizeLimit limit = SizeLimit.topic(changelog, newChangelog.maxMessageBytes());
                stored = stored.min(producerCompresses ? limit.compressed() : limit);
            }
        }
        SizeLimit shadowLimit = producerLimit;
        TimestampWindow shadowTimes = TimestampWindow.ANY;
        if (shadowTopic != null) {
            Config shadow = futures.get(shadowTopic).get(timeoutMs, TimeUnit.MILLISECONDS);
            if (compacted(shadow)) {
                throw new IllegalArgumentException("the shadow topic " + shadowTopic + " has cleanup.policy "
                        + shadow.get(TopicConfig.CLEANUP_POLICY_CONFIG).value() + "; it must be delete: a compacted"
                        + " topic keeps one decision per key, and refuses a report whose key was left out");
            }
            shadowLimit = producerLimit.min(limitOf(shadowTopic, shadow, producerCompresses));
            shadowTimes = TimestampWindow.of(shadowTopic, shadow);
        }
        return new TopicLimits(producerLimit.min(limitOf(outputTopic, output, producerCompresses)),
                producerLimit.min(limitOf(rejectedTopic, rejected, producerCompresses)), stored,
                TimestampWindow.of(outputTopic, output), TimestampWindow.of(rejectedTopic, rejected), shadowLimit,
                shadowTimes);
    }

    /**
     * Widens a changelog that takes timestamps only within a window (created before the shaper set otherwise) to
     * take any: Kafka Streams stamps a changelog write with the record the task processed last, which may be one
     * the shaper just rejected for its timestamp, and a refused changelog write stops the task on every restart.
     *
     * @throws IllegalArgumentException when the brokers refuse (no ALTER_CONFIGS permission on the topic); the
     *                                  message says what an operator must set
     */
    private static void takeAnyTimestamp(Admin admin, long timeoutMs, String changelog)
            throws InterruptedException, TimeoutException {
        String any = Long.toString(Long.MAX_VALUE);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
        try {
            admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    new AlterConfigOp(new ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, any),
                            AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, any),
                            AlterConfigOp.OpType.SET)))).all().get(timeoutMs, TimeUnit.MILLISECONDS);
            LOG.info("Changelog topic {} now takes any timestamp (message.timestamp.before.max.ms and"
                    + " message.timestamp.after.max.ms set to {})", changelog, any);
        } catch (ExecutionException e) {
            throw new IllegalArgumentException("the changelog topic " + changelog + " takes timestamps only within"
                    + " a window, and the shaper could not widen it (" + e.getCause() + "); set"
                    + " message.timestamp.before.max.ms and message.timestamp.after.max.ms to " + any + " on it, e.g."
                    + " kafka-configs.sh --alter --entity-type topics --entity-name " + changelog + " --add-config"
                    + " message.timestamp.before.max.ms=" + any + ",message.timestamp.after.max.ms=" + any);
        }
    }

    private static boolean compacted(Config config) {
        ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
        return policy != null && policy.value() != null && policy.value().contains(TopicConfig.CLEANUP_POLICY_COMPACT);
    }

    /** One topic's limit; a batch that the producer or the broker compresses keeps some slack. */
    static SizeLimit limitOf(String topic, Config config, boolean producerCompresses) {
        ConfigEntry max = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        long bytes = max == null || max.value() == null ? TopicLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES
                : Long.parseLong(max.value());
        ConfigEntry compression = config.get(TopicConfig.COMPRESSION_TYPE_CONFIG);
        String type = compression == null || compression.value() == null ? "producer" : compression.value();
        // The broker recompresses a batch for a topic with a compression type of its own, and checks the size after.
        boolean brokerCompresses = !type.equals("producer") && !type.equals("uncompressed") && !type.equals("none");
        SizeLimit limit = SizeLimit.topic(topic, bytes);
        return producerCompresses || brokerCompresses ? limit.compressed() : limit;
    }
}
