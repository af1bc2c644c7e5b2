package dev.shaper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.cli.TopicsCommand;
import dev.shaper.demo.embedded.LocalBroker;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.stream.IntStream;
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
 * state directory of the test's), then a record through the shaper; and its local trial: the local broker,
 * {@code topics create} and the shaper on the example settings file.
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
            assertThat(shaped(broker.bootstrapServers(), config.outputTopic(), 1)).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo("user-42");
                assertThat(r.value()).isEqualTo("hello");
            });
            assertThat(Http.get(shaper.httpPort(), "/metrics").body()).contains("shaper_records_passed_total");
        } finally {
            shaper.close();
        }
    }

    @Test
    void shouldRunTheReadmesLocalTrialOnTheLocalBrokerWithTheExampleSettings() throws Exception {
        // Given: the README's local trial, its broker (on a free port here: 9092 may be taken) and its settings file
        String trial = section(Files.readString(README, StandardCharsets.UTF_8), "## Try it locally");
        assertThat(trial).contains("producer-demo.jar broker");
        Matcher create = Pattern.compile("shaper\\.jar topics create (\\S+) && java -jar \\S+shaper\\.jar (\\S+)")
                .matcher(trial);
        assertThat(create.find()).as("topics create, then the shaper, on one settings file").isTrue();
        assertThat(create.group(2)).isEqualTo(create.group(1));
        Path settingsFile = Path.of("..").resolve(create.group(1));
        try (LocalBroker local = LocalBroker.start(stateDir.resolve("broker"), freePort())) {
            Map<String, String> environment = Map.of("STREAMS_BOOTSTRAP_SERVERS", local.bootstrapServers(),
                    "STREAMS_STATE_DIR", stateDir.resolve("state").toString(), "SHAPER_HTTP_PORT", "0");

            // When: its topics are created and the shaper starts on them
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int created = TopicsCommand.run(new String[] {"create", settingsFile.toString()}, environment,
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                            StandardCharsets.UTF_8));
            assertThat(created).as(err.toString(StandardCharsets.UTF_8)).isZero();
            Map<String, String> settings = SettingsLoader.load(settingsFile, environment);
            ShaperConfig config = new ShaperConfig(settings);
            ShaperApplication shaper = ShaperApplication.create(settings);
            try {
                shaper.start();
                Await.until("/health/ready answers 200", Duration.ofSeconds(60),
                        () -> Http.get(shaper.httpPort(), "/health/ready").status() == 200);
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, local.bootstrapServers()),
                        new StringSerializer(), new StringSerializer())) {
                    for (int i = 0; i < 30; i++) {
                        producer.send(new ProducerRecord<>(config.inputTopic(), "key-" + (i % 3), "record-" + i));
                    }
                    producer.flush();
                }

                // Then: every record comes out of the shaped topic
                assertThat(shaped(local.bootstrapServers(), config.outputTopic(), 30)).extracting(r -> r.value())
                        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 30).mapToObj(i -> "record-" + i)
                                .toList());
            } finally {
                shaper.close();
            }
        }
    }

    /** Reads {@code topic} (read_committed) from its beginning until it holds {@code count} records. */
    private static List<ConsumerRecord<String, String>> shaped(String bootstrap, String topic, int count) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "quick-start-reader",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> shaped = new ArrayList<>();
            Await.until(count + " records shaped", Duration.ofSeconds(30), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(shaped::add);
                return shaped.size() >= count;
            });
            return shaped;
        }
    }

    /** The README's text from {@code heading} to the next heading of its level. */
    private static String section(String readme, String heading) {
        int start = readme.indexOf(heading);
        assertThat(start).as(heading + " in the README").isNotNegative();
        int end = readme.indexOf("\n## ", start + heading.length());
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
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
