package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperHeaders;
import dev.shaper.demo.ProducerDemo;
import dev.shaper.demo.traffic.DemoRecordId;
import dev.shaper.feedback.FeedbackReport;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * {@code db-writer --feedback-topic} end to end, on a real broker and the real PostgreSQL: the command writes the
 * shaped records and reports its writes, in the units of their cost, keyed by its writer id.
 */
class DbWriterFeedbackIT {

    private static final int RECORDS = 300;
    /** Every third record costs 3 units, the others 1. */
    private static final long UNITS = RECORDS / 3 * 3 + (RECORDS - RECORDS / 3);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    private final String table = DatabaseTargets.freshTableName();
    private final String topic = "shaped-" + UUID.randomUUID();
    private final String feedbackTopic = "feedback-" + UUID.randomUUID();
    private final JdbcTarget target = DatabaseTargets.named("postgresql");
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void dropTable() throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private int dbWriter(String... options) {
        List<String> args = new ArrayList<>(List.of("db-writer", "--bootstrap-servers", broker.bootstrapServers(),
                "--topic", topic, "--group", "feedback-it-" + UUID.randomUUID(), "--jdbc-url", target.url(),
                "--db-user", target.user(), "--table", table, "--max-batch", "50"));
        args.addAll(List.of(options));
        CommandLine cli = ProducerDemo.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args.toArray(String[]::new));
    }

    @Test
    @Timeout(120)
    void shouldReportTheWrittenUnitsKeyedByTheWriterWhenAFeedbackTopicIsGiven() throws Exception {
        // Given: 300 shaped records, every third costing 3 units (500 units), and a feedback topic
        DatabaseTargets.connect(target).close();
        broker.createTopics(2, topic);
        broker.createTopics(1, feedbackTopic);
        produceShaped();

        // When: the writer runs for 6 s, reporting every 500 ms, each batch 20 ms slower throughout
        int exit = dbWriter("--feedback-topic", feedbackTopic, "--writer-id", "writer-it", "--feedback-interval",
                "500ms", "--db-slowdown", "0s+1m:20ms", "--duration", "6s");

        // Then: every record written, once
        assertThat(exit).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out.toString()).contains(RECORDS + " rows inserted", "as writer writer-it");
        assertThat(count()).isEqualTo(RECORDS);
        // And: the reports, all keyed by the writer, add up to the records' units, with no errors
        List<ConsumerRecord<byte[], byte[]>> records = feedbackRecords();
        List<FeedbackReport> reports = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("writer-it");
            reports.add(FeedbackReport.parse(r.value()));
        }
        assertThat(reports).hasSizeGreaterThanOrEqualTo(2);
        assertThat(reports.stream().mapToLong(FeedbackReport::writes).sum()).isEqualTo(UNITS);
        assertThat(reports.stream().mapToLong(FeedbackReport::errors).sum()).isZero();
        // And: the latency measured around each batch's write, the injected 20 ms included
        assertThat(reports).filteredOn(r -> r.writes() > 0).isNotEmpty()
                .allSatisfy(r -> assertThat(r.latencyP99Ms()).isGreaterThanOrEqualTo(20.0));
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartWhenTheFeedbackTopicDoesNotExist() {
        broker.createTopics(1, topic);

        int exit = dbWriter("--feedback-topic", feedbackTopic, "--duration", "1s");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("the feedback topic " + feedbackTopic + " does not exist at "
                + broker.bootstrapServers() + "; create it (one partition is enough) or leave out --feedback-topic")
                .doesNotContain("\tat ");
    }

    /** Records as the shaper would have shaped them, every third with a shaper.cost of 3. */
    private void produceShaped() throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                DemoRecordId id = new DemoRecordId("feedback-it", "k" + (i % 5), i / 5);
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, id.key(), id.toValue(60));
                record.headers().add(ShaperHeaders.RELEASED_MS, "12345".getBytes(StandardCharsets.UTF_8));
                if (i % 3 == 0) {
                    record.headers().add(ShaperHeaders.COST, "3".getBytes(StandardCharsets.UTF_8));
                }
                producer.send(record);
            }
            producer.flush();
        }
    }

    /** Everything on the feedback topic: the command has returned, so its reporter has flushed its last report. */
    private List<ConsumerRecord<byte[], byte[]>> feedbackRecords() {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(feedbackTopic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    private long count() throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }
}
