package dev.shaper.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.SettingNames;
import dev.shaper.internals.config.SettingsLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    /** The settings file the shaper's image starts with (shaper/pom.xml's Jib configuration). */
    private static final Path IMAGE_SETTINGS = Path.of("..", "shaper", "src", "main", "jib", "app", "config",
            "shaper.properties");
    /** Where the image ships the repository's examples, shaper/config. */
    private static final String IMAGE_EXAMPLES = "/app/examples/";

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

    @Test
    void shouldNameOnlySettingsTheShaperKnowsInEveryServiceOfOurs() {
        Map<String, JsonNode> ours = ourServices();
        assertThat(ours).containsKeys("shaper", "producer", "db-writer");
        List<String> unknown = new ArrayList<>();
        // The mapping the shaper itself applies to its environment, the names of its settings and Kafka's.
        ours.forEach((name, service) -> SettingNames.unknownVariables(environment(service))
                .forEach(variable -> unknown.add(name + ": " + variable)));
        assertThat(unknown).as("variables that name no shaper or Kafka setting").isEmpty();
    }

    @Test
    void shouldGiveTheShaperSettingsThatPassItsValidation() throws Exception {
        // As the image starts: its settings file, overridden by the environment compose sets
        Map<String, String> settings = SettingsLoader.load(IMAGE_SETTINGS, environment(services.get("shaper")));
        ShaperConfig config = new ShaperConfig(settings);
        assertThatCode(() -> new StreamsConfig(config.streamsProperties())).doesNotThrowAnyException();
        assertThat(config.redisUri()).isEqualTo("redis://redis:6379");
        assertThat(config.httpPort()).isEqualTo(8080);
        // And: the port Prometheus scrapes is the one the shaper serves
        assertThat(services.get("shaper").path("ports").get(0).asText()).endsWith(":" + config.httpPort());
    }

    @Test
    void shouldEnableTheExamplesExplicitlyForTheImageHasNoneByDefault() {
        // The image applies no rules file of its own (ImageConfigTest): the demo's rules are asked for here
        Map<String, String> env = environment(services.get("shaper"));
        String rules = env.get(SettingsLoader.toEnvironmentName(ShaperConfig.RULES_FILE_CONFIG));
        assertThat(rules).startsWith(IMAGE_EXAMPLES);
        assertThat(Path.of("..", "shaper", "config", rules.substring(IMAGE_EXAMPLES.length()))).isRegularFile();
        assertThat(env).containsKey(SettingsLoader.toEnvironmentName(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG));
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
