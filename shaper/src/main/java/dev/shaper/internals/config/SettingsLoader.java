package dev.shaper.internals.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Reads the settings file and applies environment overrides.
 *
 * <p>An environment variable overrides one key: {@code SHAPER_SHAPING_RATE=50} sets {@code shaper.shaping.rate};
 * a Kafka Streams or client key takes the prefix {@code STREAMS_}: {@code STREAMS_BOOTSTRAP_SERVERS} sets
 * {@code bootstrap.servers}. The name is the key in upper case with every dot written as an underscore.
 */
public final class SettingsLoader {

    /** Prefix of environment variables that set shaper keys (the prefix is part of the key). */
    public static final String SHAPER_ENV_PREFIX = "SHAPER_";
    /** Prefix of environment variables that set Kafka Streams and client keys (the prefix is dropped). */
    public static final String STREAMS_ENV_PREFIX = "STREAMS_";

    private SettingsLoader() {
    }

    public static Map<String, String> load(Path file, Map<String, String> environment) throws IOException {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        }
        Map<String, String> settings = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> settings.put(k.trim(), props.getProperty(k).trim()));
        settings.putAll(fromEnvironment(environment));
        return settings;
    }

    /** The keys that {@code environment} sets, by the naming rule above. */
    public static Map<String, String> fromEnvironment(Map<String, String> environment) {
        Map<String, String> settings = new TreeMap<>();
        environment.forEach((name, value) -> {
            if (name.startsWith(SHAPER_ENV_PREFIX) && name.length() > SHAPER_ENV_PREFIX.length()) {
                settings.put(toKey(name), value);
            } else if (name.startsWith(STREAMS_ENV_PREFIX) && name.length() > STREAMS_ENV_PREFIX.length()) {
                settings.put(toKey(name.substring(STREAMS_ENV_PREFIX.length())), value);
            }
        });
        return settings;
    }

    /** {@code SHAPER_SHAPING_MAX_DELAY_MS} to {@code shaper.shaping.max.delay.ms}. */
    public static String toKey(String environmentName) {
        return environmentName.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /** {@code shaper.shaping.max.delay.ms} to {@code SHAPER_SHAPING_MAX_DELAY_MS}. */
    public static String toEnvironmentName(String key) {
        String upper = key.toUpperCase(Locale.ROOT).replace('.', '_');
        return key.startsWith("shaper.") ? upper : STREAMS_ENV_PREFIX + upper;
    }
}
