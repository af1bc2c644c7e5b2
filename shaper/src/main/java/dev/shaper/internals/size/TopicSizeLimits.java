package dev.shaper.internals.size;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Reads the {@link SizeLimits} from the brokers: each topic's {@code max.message.bytes} and
 * {@code compression.type}, against the producer's {@code max.request.size} and {@code compression.type}. A
 * changelog topic that does not exist yet is taken as Kafka Streams will create it.
 */
public final class TopicSizeLimits {

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

    private TopicSizeLimits() {
    }

    /**
     * @param changelogs the changelog topics of the shaper's stores
     * @throws ExecutionException   when a topic other than a changelog cannot be described
     * @throws TimeoutException     when the brokers do not answer within {@code timeoutMs}
     */
    public static SizeLimits read(Admin admin, long timeoutMs, Producer producer, String outputTopic,
                                  String rejectedTopic, List<String> changelogs, NewChangelog newChangelog)
            throws ExecutionException, TimeoutException, InterruptedException {
        List<String> topics = new ArrayList<>(List.of(outputTopic, rejectedTopic));
        topics.addAll(changelogs);
        Map<String, KafkaFuture<Config>> futures = new LinkedHashMap<>();
        Map<ConfigResource, KafkaFuture<Config>> all = admin.describeConfigs(topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList()).values();
        all.forEach((resource, future) -> futures.put(resource.name(), future));

        SizeLimit producerLimit = SizeLimit.producer(producer.maxRequestSize());
        boolean producerCompresses = !"none".equals(producer.compressionType());
        SizeLimit stored = producerLimit;
        for (String changelog : changelogs) {
            SizeLimit limit;
            try {
                limit = limitOf(changelog, futures.get(changelog).get(timeoutMs, TimeUnit.MILLISECONDS),
                        producerCompresses);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                limit = SizeLimit.topic(changelog, newChangelog.maxMessageBytes());
                limit = producerCompresses ? limit.compressed() : limit;
            }
            stored = stored.min(limit);
        }
        return new SizeLimits(
                producerLimit.min(limitOf(outputTopic, futures.get(outputTopic).get(timeoutMs, TimeUnit.MILLISECONDS),
                        producerCompresses)),
                producerLimit.min(limitOf(rejectedTopic,
                        futures.get(rejectedTopic).get(timeoutMs, TimeUnit.MILLISECONDS), producerCompresses)),
                stored);
    }

    /** One topic's limit; a batch that the producer or the broker compresses keeps some slack. */
    static SizeLimit limitOf(String topic, Config config, boolean producerCompresses) {
        ConfigEntry max = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        long bytes = max == null || max.value() == null ? SizeLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES
                : Long.parseLong(max.value());
        ConfigEntry compression = config.get(TopicConfig.COMPRESSION_TYPE_CONFIG);
        String type = compression == null || compression.value() == null ? "producer" : compression.value();
        // The broker recompresses a batch for a topic with a compression type of its own, and checks the size after.
        boolean brokerCompresses = !type.equals("producer") && !type.equals("uncompressed") && !type.equals("none");
        SizeLimit limit = SizeLimit.topic(topic, bytes);
        return producerCompresses || brokerCompresses ? limit.compressed() : limit;
    }
}
