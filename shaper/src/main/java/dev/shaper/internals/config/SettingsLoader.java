package dev.shaper.internals.config;

import dev.shaper.ShaperConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the settings file and applies environment overrides.
 *
 * <p>An environment variable overrides one key: {@code SHAPER_SHAPING_RATE=50} sets {@code shaper.shaping.rate};
 * a Kafka Streams or client key takes the prefix {@code STREAMS_}: {@code STREAMS_BOOTSTRAP_SERVERS} sets
 * {@code bootstrap.servers}. The name is the key in upper case with every dot written as an underscore.
 *
 * <p>A {@code SHAPER_} variable that names no shaper setting is ignored, with one warning: Kubernetes sets
 * {@code SHAPER_SERVICE_HOST}, {@code SHAPER_PORT} and more in every pod when a Service is named {@code shaper}. A
 * misspelt key in the settings file still stops the start.
 */
public final class SettingsLoader {

    /** Prefix of environment variables that set shaper keys (the prefix is part of the key). */
    public static final String SHAPER_ENV_PREFIX = "SHAPER_";
    /** Prefix of environment variables that set Kafka Streams and client keys (the prefix is dropped). */
    public static final String STREAMS_ENV_PREFIX = "STREAMS_";

    private SettingsLoader() {
    }

    private static final Logger LOG = LoggerFactory.getLogger(SettingsLoader.class);

    public static Map<String, String> load(Path file, Map<String, String> environment) throws IOException {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        }
        Map<String, String> settings = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> settings.put(k.trim(), props.getProperty(k).trim()));
        settings.putAll(fromEnvironment(environment));
        List<String> ignored = ignoredVariables(environment);
        if (!ignored.isEmpty()) {
            LOG.warn("Ignoring environment variables that name no shaper setting: {} (Kubernetes sets such variables"
                    + " for a Service named shaper; a shaper setting is SHAPER_ and its key in upper case, dots as"
                    + " underscores)", String.join(", ", ignored));
        }
        return settings;
    }

    /** The keys that {@code environment} sets, by the naming rule above; see {@link #ignoredVariables}. */
    public static Map<String, String> fromEnvironment(Map<String, String> environment) {
        Map<String, String> settings = new TreeMap<>();
        Set<String> shaperKeys = ShaperConfig.configDef().names();
        environment.forEach((name, value) -> {
            if (isShaperVariable(name)) {
                if (shaperKeys.contains(toKey(name))) {
                    settings.put(toKey(name), value);
                }
            } else if (name.startsWith(STREAMS_ENV_PREFIX) && name.length() > STREAMS_ENV_PREFIX.length()) {
                settings.put(toKey(name.substring(STREAMS_ENV_PREFIX.length())), value);
            }
        });
        return settings;
    }

    /** The {@code SHAPER_} variables of {@code environment} that name no shaper setting, sorted. */
    public static List<String> ignoredVariables(Map<String, String> environment) {
        Set<String> shaperKeys = ShaperConfig.configDef().names();
        return environment.keySet().stream()
                .filter(name -> isShaperVariable(name) && !shaperKeys.contains(toKey(name)))
                .sorted()
                .toList();
    }

    private static boolean isShaperVariable(String name) {
        return name.startsWith(SHAPER_ENV_PREFIX) && name.length() > SHAPER_ENV_PREFIX.length();
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
