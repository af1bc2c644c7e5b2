package dev.shaper.internals.config;

import dev.shaper.ShaperConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Which keys are settings: a {@code shaper.} key of {@link ShaperConfig}, or a Kafka Streams, consumer, producer or
 * admin key, plain or under one of Kafka Streams' client prefixes ({@code main.consumer.}, {@code producer.}, ...).
 * What the deployment files (docker-compose.yml, deploy/kubernetes) are checked against: a variable there that
 * names no setting is a typo that the shaper would ignore (a {@code SHAPER_} one) or pass on to no one.
 */
public final class SettingNames {

    private static final List<String> CLIENT_PREFIXES = List.of(StreamsConfig.MAIN_CONSUMER_PREFIX,
            StreamsConfig.RESTORE_CONSUMER_PREFIX, StreamsConfig.GLOBAL_CONSUMER_PREFIX,
            StreamsConfig.CONSUMER_PREFIX, StreamsConfig.PRODUCER_PREFIX, StreamsConfig.ADMIN_CLIENT_PREFIX);

    private SettingNames() {
    }

    /** The Kafka Streams and client keys, without prefix. */
    public static Set<String> kafkaKeys() {
        Set<String> keys = new HashSet<>(StreamsConfig.configDef().names());
        keys.addAll(ConsumerConfig.configNames());
        keys.addAll(ProducerConfig.configNames());
        keys.addAll(AdminClientConfig.configNames());
        return keys;
    }

    /** Whether {@code key} is a shaper setting or a Kafka Streams or client setting (see the class doc). */
    public static boolean isSetting(String key) {
        if (key.startsWith("shaper.")) {
            return ShaperConfig.configDef().names().contains(key);
        }
        String plain = key;
        for (String prefix : CLIENT_PREFIXES) {
            if (key.startsWith(prefix)) {
                plain = key.substring(prefix.length());
                break;
            }
        }
        return kafkaKeys().contains(plain);
    }

    /**
     * The {@code SHAPER_} and {@code STREAMS_} variables of {@code environment} that name no setting by the mapping
     * {@link SettingsLoader} applies, in the order given; other variables are not the shaper's and are left out.
     */
    public static List<String> unknownVariables(Map<String, String> environment) {
        List<String> unknown = new ArrayList<>();
        environment.forEach((name, value) -> {
            boolean ours = name.startsWith(SettingsLoader.SHAPER_ENV_PREFIX)
                    || name.startsWith(SettingsLoader.STREAMS_ENV_PREFIX);
            if (!ours) {
                return;
            }
            Set<String> keys = SettingsLoader.fromEnvironment(Map.of(name, value)).keySet();
            if (keys.isEmpty() || !keys.stream().allMatch(SettingNames::isSetting)) {
                unknown.add(name);
            }
        });
        return unknown;
    }
}
