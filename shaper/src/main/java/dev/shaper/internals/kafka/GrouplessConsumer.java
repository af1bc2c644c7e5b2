package dev.shaper.internals.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Settings for a plain consumer outside any consumer group, as the shaper's topic readers use one: it assigns itself
 * every partition (every reader needs every record, and a group would rebalance), commits nothing and deserializes
 * byte arrays.
 */
public final class GrouplessConsumer {

    private GrouplessConsumer() {
    }

    /**
     * The consumer settings from the client settings to reach the cluster ({@code bootstrap.servers}, security):
     * group settings and deserializers dropped, {@code clientId} unless one is set. The caller adds where to start.
     */
    public static Map<String, Object> settings(Map<String, ?> clientSettings, String clientId) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        settings.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        settings.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        settings.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // A missing topic must be an error, not quietly created with the broker's defaults.
        settings.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        settings.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return settings;
    }
}
