package dev.shaper.feedback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.SharedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The reporter on a real broker: its windows arrive on the feedback topic, keyed by the writer, every interval. */
class FeedbackReporterIT {

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(60)
    void shouldPublishOneReportPerIntervalKeyedByTheWriter() throws Exception {
        broker.createTopics(1, "db-feedback");
        List<FeedbackReport> reports = new ArrayList<>();
        long written;
        try (FeedbackReporter reporter = FeedbackReporter.start(broker.bootstrapServers(), "db-feedback", "writer-7",
                Duration.ofMillis(200))) {
            // When: 50 writes of 1 unit, and the reporter runs for a few intervals
            for (int i = 0; i < 50; i++) {
                reporter.recordWrite(1, 2_000_000L, true);
            }
            written = 50;
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.assign(List.of(new TopicPartition("db-feedback", 0)));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (reports.size() < 3 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("writer-7");
                        reports.add(FeedbackReport.parse(record.value()));
                    }
                }
            }
        }

        // Then: reports about an interval apart; the writes counted once, in the first; later windows quiet
        assertThat(reports).hasSizeGreaterThanOrEqualTo(3);
        assertThat(reports.stream().mapToLong(FeedbackReport::writes).sum()).isEqualTo(written);
        assertThat(reports.get(0).latencyP99Ms()).isEqualTo(2.0);
        assertThat(reports.get(1).windowMs()).isBetween(100L, 1_000L);
        assertThat(reports.get(2).writes()).isZero();
    }
}
