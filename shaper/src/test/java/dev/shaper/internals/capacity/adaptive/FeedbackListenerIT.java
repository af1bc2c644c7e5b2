package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.ShaperConfig;
import dev.shaper.feedback.FeedbackReport;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The feedback listener on a real broker: it reads every partition of the feedback topic from the last timeout on,
 * and those added later, hands the good reports on, counts the malformed ones and keeps reading after them; a
 * missing topic stops the start.
 */
class FeedbackListenerIT {

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    private static final Duration LOOK_BACK = Duration.ofSeconds(5);

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, long timestampMs, String writer,
                                                         byte[] value) {
        return new ProducerRecord<>(topic, partition, timestampMs, writer.getBytes(StandardCharsets.UTF_8), value);
    }

    private static byte[] report(long atMs, long writes) {
        return new FeedbackReport(atMs, 1_000, writes, 0, 12.5).toJson();
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(120)
    void shouldHandOnGoodReportsCountMalformedOnesAndKeepReadingWhenWritersSendBoth() throws Exception {
        // Given: a feedback topic of two partitions holding a report from a minute ago and one from a second ago
        String topic = "feedback-mixed";
        broker.createTopics(2, topic);
        long now = System.currentTimeMillis();
        List<Map.Entry<String, FeedbackReport>> seen = new CopyOnWriteArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(record(topic, 0, now - 60_000, "writer-old", report(now - 60_000, 1))).get();
            producer.send(record(topic, 0, now - 1_000, "writer-a", report(now - 1_000, 100))).get();

            // When: the listener starts (looking 5 s back), and the writers send good and malformed reports to both
            // partitions
            try (FeedbackListener listener = new FeedbackListener(
                    Map.of("bootstrap.servers", broker.bootstrapServers(), "group.id", "ignored"), topic, LOOK_BACK,
                    (writer, report, receivedAtMs) -> seen.add(Map.entry(writer, report)),
                    System::currentTimeMillis)) {
                listener.start();
                long sent = System.currentTimeMillis();
                producer.send(record(topic, 0, sent, "writer-b", text("not json")));
                producer.send(record(topic, 1, sent, "writer-b", text("{\"atMs\": 1, \"writes\": 3}")));
                producer.send(record(topic, 1, sent, "writer-c", report(sent, 200)));
                producer.send(record(topic, 0, sent, "writer-d", text("[]"))).get();
                Await.until(() -> "seen " + seen + ", malformed " + listener.malformedRecords(), Duration.ofSeconds(30),
                        () -> seen.size() >= 2 && listener.malformedRecords() >= 3);

                // Then: the recent reports of both partitions came through, the one from a minute ago did not, and
                // the three malformed records were counted
                assertThat(seen).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("writer-a", "writer-c");
                assertThat(seen).filteredOn(e -> e.getKey().equals("writer-c"))
                        .extracting(e -> e.getValue().writes()).containsExactly(200L);
                assertThat(listener.malformedRecords()).isEqualTo(3);

                // And when: another good report follows the malformed ones
                producer.send(record(topic, 0, System.currentTimeMillis(), "writer-b",
                        report(System.currentTimeMillis(), 300))).get();

                // Then: it comes through too; the listener kept reading
                Await.until(() -> "seen " + seen, Duration.ofSeconds(30), () -> seen.size() >= 3);
                assertThat(seen.get(2).getKey()).isEqualTo("writer-b");
                assertThat(listener.isRunning()).isTrue();
                assertThat(listener.reports()).isEqualTo(3);
                assertThat(listener.failedPolls()).isZero();
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldReadAPartitionAddedToTheTopicAfterTheStart() throws Exception {
        // Given: a listener on a topic of one partition
        String topic = "feedback-grown";
        broker.createTopics(1, topic);
        List<String> seen = new CopyOnWriteArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
             FeedbackListener listener = new FeedbackListener(Map.of("bootstrap.servers", broker.bootstrapServers()),
                     topic, LOOK_BACK, (writer, report, receivedAtMs) -> seen.add(writer),
                     System::currentTimeMillis)) {
            listener.start();

            // When: the topic grows to two partitions, and a writer reports to the new one
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all().get();
            long sent = System.currentTimeMillis();
            producer.send(record(topic, 1, sent, "writer-new", report(sent, 10))).get();

            // Then: the listener reads it, within a few of its partition checks
            Await.until(() -> "seen " + seen, Duration.ofSeconds(4 * FeedbackListener.PARTITION_CHECK_MS / 1000),
                    () -> seen.contains("writer-new"));
            assertThat(listener.failedPolls()).isZero();
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartWhenTheFeedbackTopicDoesNotExist() {
        // Given: a listener for a topic nobody created
        FeedbackListener listener = new FeedbackListener(Map.of("bootstrap.servers", broker.bootstrapServers()),
                "feedback-missing", LOOK_BACK, (writer, report, receivedAtMs) -> { }, System::currentTimeMillis);

        // When/Then: the start fails, naming the setting and the topic
        assertThatThrownBy(listener::start)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG)
                .hasMessageContaining("feedback-missing")
                .hasMessageContaining("no such topic");
        assertThat(listener.isRunning()).isFalse();
        listener.close();
    }
}
