package dev.shaper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, as a newcomer would run it against a one-broker cluster: its {@code kafka-topics.sh}
 * commands (replication factor 1, as the README says for one broker), its settings file (the broker's address and a
 * state directory of the test's), then a record through the shaper.
 */
class QuickStartIT {

    private static final Path README = Path.of("..", "README.md");

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @TempDir
    Path stateDir;

    @Test
    void shouldStartOnTheReadmesTopicsAndSettingsAndShapeARecord() throws Exception {
        // Given: the topics of the README's commands
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        List<NewTopic> topics = topics(readme);
        assertThat(topics).hasSize(3);
        broker.admin().createTopics(topics).all().get();

        // When: the shaper starts on the README's settings file, pointed at this broker
        Map<String, String> settings = settings(readme);
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        settings.put(ShaperConfig.HTTP_PORT_CONFIG, "0");
        ShaperApplication shaper = ShaperApplication.create(settings);
        try {
            shaper.start();

            // Then: it becomes ready, and a record sent to the input comes out of the shaped topic
            Await.until("/health/ready answers 200", Duration.ofSeconds(60),
                    () -> Http.get(shaper.httpPort(), "/health/ready").status() == 200);
            ShaperConfig config = new ShaperConfig(settings);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(config.inputTopic(), "user-42", "hello")).get();
            }
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, "quick-start-reader",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                    new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(config.outputTopic()));
                List<ConsumerRecord<String, String>> shaped = new ArrayList<>();
                Await.until("the record shaped", Duration.ofSeconds(30), () -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(shaped::add);
                    return !shaped.isEmpty();
                });
                assertThat(shaped).singleElement().satisfies(r -> {
                    assertThat(r.key()).isEqualTo("user-42");
                    assertThat(r.value()).isEqualTo("hello");
                });
            }
            assertThat(Http.get(shaper.httpPort(), "/metrics").body()).contains("shaper_records_passed_total");
        } finally {
            shaper.close();
        }
    }

    /** The README's {@code kafka-topics.sh --create} commands, on one broker: replication factor 1. */
    private static List<NewTopic> topics(String readme) {
        Matcher block = Pattern.compile("```sh\n(.*?)```", Pattern.DOTALL).matcher(readme);
        List<NewTopic> topics = new ArrayList<>();
        while (block.find()) {
            for (String command : block.group(1).replace("\\\n", " ").split("\n")) {
                if (!command.contains("kafka-topics.sh") || !command.contains("--create")) {
                    continue;
                }
                Matcher name = Pattern.compile("--topic (\\S+)").matcher(command);
                Matcher partitions = Pattern.compile("--partitions (\\d+)").matcher(command);
                assertThat(name.find() && partitions.find()).as(command).isTrue();
                Map<String, String> configs = new HashMap<>();
                Matcher config = Pattern.compile("--config (\\S+)=(\\S+)").matcher(command);
                while (config.find()) {
                    if (!config.group(1).equals("min.insync.replicas")) { // more than one broker has
                        configs.put(config.group(1), config.group(2));
                    }
                }
                topics.add(new NewTopic(name.group(1), Integer.parseInt(partitions.group(1)), (short) 1)
                        .configs(configs));
            }
        }
        return topics;
    }

    /** The README's settings file, its {@code properties} block. */
    private static Map<String, String> settings(String readme) throws Exception {
        Matcher block = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("a properties block in the README").isTrue();
        Properties props = new Properties();
        props.load(new StringReader(block.group(1)));
        Map<String, String> settings = new HashMap<>();
        props.stringPropertyNames().forEach(k -> settings.put(k, props.getProperty(k)));
        return settings;
    }
}
