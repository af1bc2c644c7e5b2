package dev.shaper.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/** Where the rules topic is: shared by every {@code rules} command. */
final class TopicOptions {

    static final String BOOTSTRAP_SERVERS = "--bootstrap-servers";
    static final String TOPIC = "--topic";
    static final String DEFAULT_TOPIC = "shaper-rules";

    @Option(names = BOOTSTRAP_SERVERS, paramLabel = "HOST:PORT[,...]",
            description = "Kafka bootstrap servers (environment: STREAMS_BOOTSTRAP_SERVERS)")
    String bootstrapServers;

    @Option(names = TOPIC, paramLabel = "TOPIC",
            description = "The rules topic, shaper.rules.topic of the shaper (default: " + DEFAULT_TOPIC
                    + "; environment: SHAPER_RULES_TOPIC)")
    String topic;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Properties file of Kafka client settings (security.protocol, sasl.*, ssl.*, ...)")
    Path commandConfig;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Longest wait for the brokers (default: ${DEFAULT-VALUE})")
    long timeoutMs;

    /** The client settings to reach the cluster. */
    Map<String, Object> clientSettings() {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "missing " + BOOTSTRAP_SERVERS
                    + " (or STREAMS_BOOTSTRAP_SERVERS); expected the Kafka cluster's host:port[,host:port...]");
        }
        if (timeoutMs < 1) {
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "--timeout-ms is " + timeoutMs + "; expected >= 1");
        }
        Map<String, Object> settings = new HashMap<>();
        if (commandConfig != null) {
            Properties file = new Properties();
            try (Reader reader = Files.newBufferedReader(commandConfig)) {
                file.load(reader);
            } catch (IOException e) {
                throw new CommandFailure(RulesCommand.EXIT_USAGE, "--command-config " + commandConfig
                        + " cannot be read: " + e.getMessage() + "; expected a properties file of client settings");
            }
            file.forEach((k, v) -> settings.put(String.valueOf(k), v));
        }
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return settings;
    }

    Duration timeout() {
        return Duration.ofMillis(timeoutMs);
    }
}
