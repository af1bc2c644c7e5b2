package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.ShaperInstance;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic settings that differ between the input and the shaper's other topics must not let one record stop the
 * shaper: a timestamp the input topic took but the output topic refuses, and a compacted rejected topic (which
 * refuses a rejected record without a key), both of which used to stop the task on every restart.
 */
class TopicSettingsIT {

    @RegisterExtension
    static final dev.shaper.testsupport.SharedKafkaBroker broker = new dev.shaper.testsupport.SharedKafkaBroker();

    private static final long DAY_MS = 86_400_000L;

    @Test
    @Timeout(120)
    void shouldRejectATimestampTheOutputTopicWouldRefuseAndStampTheRejectedCopyIfNeeded() throws Exception {
        // Given: an input topic that takes any timestamp, an output topic that takes an hour into the past, and
        // a rejected topic that takes any past but only an hour ahead (Kafka's default)
        broker.createTopics(1, Map.of("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)), "ts-in");
        broker.createTopics(1, Map.of("message.timestamp.before.max.ms", "3600000"), "ts-out");
        broker.createTopics(1, "ts-rejected");
        Map<String, Object> settings = settings("ts", "ts-rejected");
        try (ShaperInstance shaper = ShaperInstance.start(settings);
             KafkaProducer<byte[], byte[]> producer = producer()) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
            long now = System.currentTimeMillis();

            // When: a record from 1970, one from ten years ahead, then an ordinary one
            send(producer, "old", 0L);
            send(producer, "future", now + 3_650 * DAY_MS);
            send(producer, "ordinary", null);

            // Then: the two odd ones are rejected with the window named, the ordinary one is shaped, and the
            // shaper still runs
            List<ConsumerRecord<byte[], byte[]>> read = readBoth("ts-out", "ts-rejected", 3);
            assertThat(shaper.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(read).extracting(r -> r.topic() + ":" + header(r, "id"))
                    .containsExactly("ts-rejected:old", "ts-rejected:future", "ts-out:ordinary");
            assertThat(read.subList(0, 2)).allSatisfy(r -> {
                assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("INVALID_TIMESTAMP");
                assertThat(header(r, ShaperHeaders.DETAIL)).contains("message.timestamp.before.max.ms (3600000)");
            });
            assertThat(read.get(0).timestamp()).isZero(); // the rejected topic takes it: kept
            // The rejected topic would refuse ten years ahead: the rejected copy carries the rejection's time
            assertThat(read.get(1).timestamp()).isBetween(now - 60_000, now + 600_000);
            assertThat(header(read.get(1), ShaperHeaders.DETAIL)).contains("stamped with the time of the rejection");
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartOnACompactedRejectedTopic() {
        broker.createTopics(1, "compact-in", "compact-out");
        broker.createTopics(1, Map.of("cleanup.policy", "compact"), "compact-rejected");

        assertThatThrownBy(() -> ShaperInstance.create(settings("compact", "compact-rejected")))
                .isInstanceOf(ShaperApplication.StartupException.class)
                .hasMessageContaining("the rejected topic compact-rejected has cleanup.policy compact; it must be"
                        + " delete");
    }

    @Test
    @Timeout(60)
    void shouldExitWithTheKafkaCodeWhenTheTopicsAreMissing(@TempDir Path dir) throws Exception {
        // Given: a settings file naming topics that do not exist
        Properties props = new Properties();
        settings("absent", "absent-rejected").forEach((key, value) -> props.setProperty(key, String.valueOf(value)));
        Path file = dir.resolve("shaper.properties");
        try (Writer writer = Files.newBufferedWriter(file)) {
            props.store(writer, null);
        }

        // When: the shaper is started from the command line
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ShaperApplication.run(new String[] {file.toString()}, Map.of(),
                new PrintStream(OutputStream.nullOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));

        // Then: it exits with the code of a Kafka problem, not of a settings error, and names the topics
        assertThat(code).isEqualTo(ShaperApplication.EXIT_KAFKA);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("absent-in", "do not exist");
    }

    @Test
    @Timeout(60)
    void shouldWidenAChangelogThatTakesTimestampsOnlyWithinAWindow() throws Exception {
        // Given: a changelog left by an earlier version, created with Kafka's default timestamp window
        broker.createTopics(1, "widen-in", "widen-out", "widen-rejected");
        String changelog = ShaperTopology.changelogTopics("widen-it").get(1);
        broker.createTopics(1, Map.of("cleanup.policy", "compact", "message.timestamp.after.max.ms", "3600000"),
                changelog);

        // When: the shaper starts on it
        try (ShaperInstance shaper = ShaperInstance.create(settings("widen", "widen-rejected"));
             org.apache.kafka.clients.admin.Admin admin = broker.admin()) {
            // Then: the changelog takes any timestamp
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, changelog);
            var config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            assertThat(config.get("message.timestamp.after.max.ms").value()).isEqualTo(Long.toString(Long.MAX_VALUE));
            assertThat(config.get("message.timestamp.before.max.ms").value()).isEqualTo(Long.toString(Long.MAX_VALUE));
        }
    }

    private static Map<String, Object> settings(String prefix, String rejected) {
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), prefix + "-it");
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, prefix + "-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, prefix + "-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, rejected);
        return settings;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String id, Long timestamp) throws Exception {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>("ts-in", 0, timestamp,
                id.getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
    }

    private static List<ConsumerRecord<byte[], byte[]>> readBoth(String output, String rejected, int count) {
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "topic-settings-reader-" + output,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(output, rejected));
            Await.until(() -> read.size() + " of " + count + " read", Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return read.size() >= count;
            });
        }
        read.sort(java.util.Comparator.comparing((ConsumerRecord<byte[], byte[]> r) -> !r.topic().equals(rejected))
                .thenComparingLong(ConsumerRecord::offset));
        return read;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer());
    }
}
