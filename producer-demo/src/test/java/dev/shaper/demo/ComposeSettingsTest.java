package dev.shaper.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.SettingsLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docker-compose.yml} configures our services (the images Jib builds, named {@code kafka-shaper*}) with
 * the shaper's own setting names: every {@code SHAPER_*} variable must name a {@link ShaperConfig} key and
 * every {@code STREAMS_*} variable a Kafka setting, the shaper's settings must pass its own validation, and
 * the tools' command lines must parse.
 */
class ComposeSettingsTest {

    private static final Path COMPOSE = Path.of("..", "docker-compose.yml");
    private static final List<String> KAFKA_PREFIXES = List.of("main.consumer.", "restore.consumer.",
            "global.consumer.", "consumer.", "producer.", "admin.");

    private static JsonNode services;

    @BeforeAll
    static void readCompose() throws Exception {
        services = new ObjectMapper(new YAMLFactory()).readTree(COMPOSE.toFile()).get("services");
    }

    /** The services that run our images, by name. */
    private static Map<String, JsonNode> ourServices() {
        Map<String, JsonNode> ours = new HashMap<>();
        services.fields().forEachRemaining(e -> {
            if (e.getValue().path("image").asText().startsWith("kafka-shaper")) {
                ours.put(e.getKey(), e.getValue());
            }
        });
        return ours;
    }

    private static Map<String, String> environment(JsonNode service) {
        Map<String, String> env = new HashMap<>();
        service.path("environment").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        return env;
    }

    private static Set<String> kafkaKeys() {
        Set<String> keys = new HashSet<>(StreamsConfig.configDef().names());
        keys.addAll(ConsumerConfig.configNames());
        keys.addAll(ProducerConfig.configNames());
        keys.addAll(AdminClientConfig.configNames());
        return keys;
    }

    private static String withoutClientPrefix(String key) {
        for (String prefix : KAFKA_PREFIXES) {
            if (key.startsWith(prefix)) {
                return key.substring(prefix.length());
            }
        }
        return key;
    }

    @Test
    void shouldNameOnlySettingsTheShaperKnowsInEveryServiceOfOurs() {
        Map<String, JsonNode> ours = ourServices();
        assertThat(ours).containsKeys("shaper", "producer", "db-writer");
        Set<String> shaperKeys = ShaperConfig.configDef().names();
        Set<String> kafkaKeys = kafkaKeys();
        List<String> unknown = new ArrayList<>();
        ours.forEach((name, service) -> environment(service).forEach((variable, value) -> {
            // The mapping the shaper itself applies to its environment.
            Set<String> keys = SettingsLoader.fromEnvironment(Map.of(variable, value)).keySet();
            boolean known = !keys.isEmpty() && keys.stream().allMatch(key -> key.startsWith("shaper.")
                    ? shaperKeys.contains(key) : kafkaKeys.contains(withoutClientPrefix(key)));
            if (!known) {
                unknown.add(name + ": " + variable + " " + keys);
            }
        }));
        assertThat(unknown).as("variables that name no shaper or Kafka setting").isEmpty();
    }

    @Test
    void shouldGiveTheShaperSettingsThatPassItsValidation() throws Exception {
        // As the image starts: its settings file, overridden by the environment compose sets
        Map<String, String> settings = SettingsLoader.load(Path.of("..", "shaper", "config", "shaper.properties"),
                environment(services.get("shaper")));
        ShaperConfig config = new ShaperConfig(settings);
        assertThatCode(() -> new StreamsConfig(config.streamsProperties())).doesNotThrowAnyException();
        assertThat(config.redisUri()).isEqualTo("redis://redis:6379");
        assertThat(config.httpPort()).isEqualTo(8080);
        // And: the port Prometheus scrapes is the one the shaper serves
        assertThat(services.get("shaper").path("ports").get(0).asText()).endsWith(":" + config.httpPort());
    }

    @Test
    void shouldGiveTheToolsCommandLinesThatParse() {
        for (String name : List.of("producer", "db-writer")) {
            List<String> args = new ArrayList<>();
            services.get(name).get("command").forEach(a -> args.add(a.asText()));
            assertThatCode(() -> ProducerDemo.commandLine().parseArgs(args.toArray(String[]::new)))
                    .as(name + " " + args).doesNotThrowAnyException();
        }
    }

    @Test
    void shouldStartEachServiceOnlyOnceWhatItNeedsIsHealthy() {
        List<String> wrong = new ArrayList<>();
        services.fields().forEachRemaining(service -> service.getValue().path("depends_on").fields()
                .forEachRemaining(dependency -> {
                    String condition = dependency.getValue().path("condition").asText();
                    boolean hasHealthcheck = services.path(dependency.getKey()).has("healthcheck");
                    if (condition.equals("service_started") || (condition.equals("service_healthy") && !hasHealthcheck)) {
                        wrong.add(service.getKey() + " -> " + dependency.getKey() + " (" + condition + ")");
                    }
                }));
        assertThat(wrong).as("dependencies not waiting for a health check").isEmpty();
        // The DB writer must not start while PostgreSQL initialises: its JDBC connection does not retry.
        assertThat(services.at("/db-writer/depends_on/postgres/condition").asText()).isEqualTo("service_healthy");
    }

    @Test
    void shouldPinEveryImageAndRunTheBrokerOfTheClientsVersion() {
        List<String> floating = new ArrayList<>();
        services.fields().forEachRemaining(e -> {
            String image = e.getValue().path("image").asText();
            if (!image.startsWith("kafka-shaper") && !image.matches(".+:v?\\d+\\.\\d+(\\.\\d+)?")) {
                floating.add(e.getKey() + ": " + image);
            }
        });
        // A release, not a line (PostgreSQL's releases are major.minor): "redis:7" or "postgres:16" move under us.
        assertThat(floating).as("images without a release tag").isEmpty();
        String clients = AppInfoParser.getVersion();
        assertThat(services.at("/kafka/image").asText()).isEqualTo("apache/kafka:" + clients);
    }

    @Test
    void shouldLetClientsOnTheHostReachKafkaAndGrafanaOnlyViewAnonymously() {
        JsonNode kafka = services.path("kafka");
        assertThat(kafka.at("/environment/KAFKA_ADVERTISED_LISTENERS").asText()).contains("localhost:9094");
        List<String> ports = new ArrayList<>();
        kafka.path("ports").forEach(port -> ports.add(port.asText()));
        assertThat(ports).contains("9094:9094");
        assertThat(services.at("/grafana/environment/GF_AUTH_ANONYMOUS_ORG_ROLE").asText()).isEqualTo("Viewer");
    }
}
