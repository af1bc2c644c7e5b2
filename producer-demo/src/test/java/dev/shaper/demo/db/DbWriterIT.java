package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.ShaperHeaders;
import dev.shaper.demo.traffic.DemoRecordId;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The DB writer against a real broker and real databases (the embedded H2 and PostgreSQL): every shaped
 * record becomes one row with its release time, a replay from the beginning adds no row, and a batch the
 * database refuses leaves its offsets uncommitted.
 */
class DbWriterIT {

    private static final int RECORDS = 400;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    private final String table = DatabaseTargets.freshTableName();
    private final String topic = "shaped-" + UUID.randomUUID();
    private JdbcTarget target;

    @AfterEach
    void dropTable() throws SQLException {
        if (target != null) {
            try (Connection c = target.connect(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void shouldWriteEachRecordOnceAndSkipTheWholeBatchWhenReplayed(String database) throws Exception {
        // Given: shaped records on a topic that records append time; half of them waited (release header),
        // half passed at once (queued 0, the append time stands in)
        target = DatabaseTargets.named(database);
        DatabaseTargets.connect(target).close();
        broker.createTopics(2, KafkaBroker.APPEND_TIME, topic);
        long before = System.currentTimeMillis();
        produceShaped(RECORDS);

        // When: a writer reads them all
        WriterStats first = writeAll("writer-a", RECORDS);

        // Then: one row per record, each with a release time
        assertThat(first.rowsInserted()).isEqualTo(RECORDS);
        assertThat(first.rowsSkipped()).isZero();
        assertThat(count("SELECT COUNT(*) FROM " + table)).isEqualTo(RECORDS);
        assertThat(count("SELECT COUNT(DISTINCT record_id) FROM " + table)).isEqualTo(RECORDS);
        assertThat(count("SELECT COUNT(*) FROM " + table + " WHERE released_ms IS NULL")).isZero();
        assertThat(count("SELECT COUNT(*) FROM " + table + " WHERE released_ms = 12345")).isEqualTo(RECORDS / 2);
        assertThat(count("SELECT COUNT(*) FROM " + table + " WHERE released_ms >= " + before)).isEqualTo(RECORDS / 2);
        assertThat(first.batchLatency().count()).isEqualTo((int) first.batches()).isPositive();

        // When: another group replays the topic from the beginning (as after a crash before the offset commit)
        WriterStats replay = writeAll("writer-b", RECORDS);

        // Then: nothing new
        assertThat(replay.rowsInserted()).isZero();
        assertThat(replay.rowsSkipped()).isEqualTo(RECORDS);
        assertThat(count("SELECT COUNT(*) FROM " + table)).isEqualTo(RECORDS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void shouldNotCommitTheOffsetsOfABatchTheDatabaseRefused(String database) throws Exception {
        // Given: a table that refuses one key, and records of that key on the topic
        target = DatabaseTargets.named(database);
        try (Connection c = DatabaseTargets.connect(target); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (run_id VARCHAR(64) NOT NULL, record_id VARCHAR(300) NOT NULL,"
                    + " record_key VARCHAR(256) NOT NULL CHECK (record_key <> 'poison'), released_ms BIGINT,"
                    + " written_ms BIGINT NOT NULL, PRIMARY KEY (run_id, record_id))");
        }
        broker.createTopics(1, topic);
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, "poison", new DemoRecordId("r", "poison", 0).toValue(20))).get();
        }

        // When
        DbWriter writer = new DbWriter(broker.bootstrapServers(), topic, "writer-poisoned", 100, target.connect(),
                new ShapedRowsTable(table, target.dialect()), Clock.systemUTC());
        CompletableFuture<Void> run = runInBackground(writer);

        // Then: the writer stops on the error, and its group has committed nothing
        assertThatThrownBy(() -> run.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).hasRootCauseInstanceOf(SQLException.class);
        writer.close();
        assertThat(writer.stats().rowsInserted()).isZero();
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("writer-poisoned")
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertThat(committed.values()).allSatisfy(o -> assertThat(o).isNull());
        }
    }

    /** Runs {@code writer} until it is closed or fails; a database error fails the future, its cause kept. */
    private static CompletableFuture<Void> runInBackground(DbWriter writer) {
        return CompletableFuture.runAsync(() -> {
            try {
                writer.run();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Sends {@code n} records as the shaper would have shaped them; even ones waited, odd ones did not. */
    private void produceShaped(int n) throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer()) {
            for (int i = 0; i < n; i++) {
                DemoRecordId id = new DemoRecordId("run-it", "k" + (i % 7), i / 7);
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, id.key(), id.toValue(60));
                if (i % 2 == 0) {
                    record.headers().add(ShaperHeaders.QUEUED_MS, "40".getBytes(StandardCharsets.UTF_8));
                    record.headers().add(ShaperHeaders.RELEASED_MS, "12345".getBytes(StandardCharsets.UTF_8));
                } else {
                    record.headers().add(ShaperHeaders.QUEUED_MS, "0".getBytes(StandardCharsets.UTF_8));
                }
                producer.send(record);
            }
            producer.flush();
        }
    }

    private WriterStats writeAll(String group, int records) throws Exception {
        DbWriter writer = new DbWriter(broker.bootstrapServers(), topic, group, 50, target.connect(),
                new ShapedRowsTable(table, target.dialect()), Clock.systemUTC());
        CompletableFuture<Void> run = runInBackground(writer);
        try {
            Await.until(() -> writer.stats().rowsInserted() + writer.stats().rowsSkipped() + " of " + records
                    + " records written", TIMEOUT,
                    () -> run.isDone() || writer.stats().rowsInserted() + writer.stats().rowsSkipped() >= records);
        } finally {
            writer.stop();
            run.get(30, TimeUnit.SECONDS);
            writer.close();
        }
        return writer.stats();
    }

    private long count(String sql) throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    private static KafkaProducer<String, byte[]> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }
}
