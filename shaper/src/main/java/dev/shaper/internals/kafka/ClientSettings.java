package dev.shaper.internals.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** The settings a Kafka client takes among the Kafka Streams settings (bootstrap servers, security, ...). */
public final class ClientSettings {

    private ClientSettings() {
    }

    /** The settings among {@code streamsProps} that a client with these config {@code names} knows. */
    public static Map<String, Object> among(Properties streamsProps, Set<String> names) {
        Map<String, Object> client = new HashMap<>();
        streamsProps.forEach((k, v) -> {
            if (names.contains(String.valueOf(k))) {
                client.put(String.valueOf(k), v);
            }
        });
        return client;
    }

    /** An Admin client's settings among {@code streamsProps}. */
    public static Map<String, Object> admin(Properties streamsProps) {
        return among(streamsProps, AdminClientConfig.configNames());
    }
}
