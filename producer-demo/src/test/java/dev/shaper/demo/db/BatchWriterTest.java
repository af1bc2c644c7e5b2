package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.demo.traffic.FakeTicker;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One transaction per batch against a real (in-memory H2) database, on a fake clock for the latency. */
class BatchWriterTest {

    /** What the observer was told of one batch. */
    record Batch(long units, long latencyNanos, boolean ok) {
    }

    private final String url = "jdbc:h2:mem:batches-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private final ShapedRowsTable table = new ShapedRowsTable("shaped_rows", ShapedRowsTable.Dialect.H2);
    private final FakeTicker ticker = new FakeTicker();
    private final List<Batch> told = new ArrayList<>();
    private BatchWriter writer;

    @AfterEach
    void close() {
        if (writer != null) {
            writer.close();
        }
    }

    private BatchWriter writer() throws SQLException {
        return writer(null);
    }

    private BatchWriter writer(DbSlowdown slowdown) throws SQLException {
        writer = new BatchWriter(DriverManager.getConnection(url), table, Clock.systemUTC(), ticker, slowdown,
                (units, latencyNanos, ok) -> told.add(new Batch(units, latencyNanos, ok)));
        return writer;
    }

    private static List<ShapedRow> rows(String key, int n) {
        List<ShapedRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new ShapedRow("run", key + ":" + i, key, 1_000L + i));
        }
        return rows;
    }

    private long count() throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM shaped_rows")) {
            r.next();
            return r.getLong(1);
        }
    }

    @Test
    void shouldTellTheObserverOfEachCommittedBatchWithItsUnitsWhenTheDatabaseTakesIt() throws SQLException {
        // Given
        BatchWriter writer = writer();

        // When: a batch of 3 records costing 5 units, then the same batch again (a replay)
        int first = writer.write(rows("k", 3), 5);
        int replay = writer.write(rows("k", 3), 5);

        // Then: both committed and told, the replay with no new row
        assertThat(first).isEqualTo(3);
        assertThat(replay).isZero();
        assertThat(count()).isEqualTo(3);
        assertThat(told).containsExactly(new Batch(5, 0, true), new Batch(5, 0, true));
        assertThat(writer.stats().batches()).isEqualTo(2);
        assertThat(writer.stats().rowsSkipped()).isEqualTo(3);
    }

    @Test
    void shouldSlowDownTheBatchesThatBeginWithinTheSlowdownWhenOneIsSet() throws SQLException {
        // Given: from 10 s after the start, for 10 s, each batch 50 ms slower
        BatchWriter writer = writer(new DbSlowdown(Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofMillis(50)));
        List<Long> beganAtMs = List.of(0L, 9_999L, 10_000L, 19_900L, 20_000L, 30_000L);

        // When: a batch begins at each of these times after the start
        for (int i = 0; i < beganAtMs.size(); i++) {
            long elapsedMs = ticker.nanoTime() / 1_000_000;
            ticker.advance(Duration.ofMillis(beganAtMs.get(i) - elapsedMs));
            writer.write(rows("k" + i, 2), 2);
        }

        // Then: those from 10 s to before 20 s took 50 ms more (the fake clock moves only while the writer waits),
        // and all were committed
        assertThat(told).extracting(Batch::latencyNanos).containsExactly(0L, 0L, 50_000_000L, 50_000_000L, 0L, 0L);
        assertThat(told).allSatisfy(b -> assertThat(b.ok()).isTrue());
        assertThat(count()).isEqualTo(12);
        assertThat(writer.stats().batchLatency().percentile(100)).isEqualTo(50_000);
    }

    @Test
    void shouldTellTheObserverOfAFailedBatchWhenTheDatabaseRefusesIt() throws SQLException {
        // Given: a table that refuses the key "poison"
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE shaped_rows (run_id VARCHAR(64) NOT NULL, record_id VARCHAR(300) NOT NULL,"
                    + " record_key VARCHAR(256) NOT NULL CHECK (record_key <> 'poison'), released_ms BIGINT,"
                    + " written_ms BIGINT NOT NULL, PRIMARY KEY (run_id, record_id))");
        }
        BatchWriter writer = writer();
        List<ShapedRow> batch = new ArrayList<>(rows("k", 2));
        batch.addAll(rows("poison", 1));

        // When / Then: the batch fails whole, and the observer hears of its 3 units as failed
        assertThatThrownBy(() -> writer.write(batch, 3)).isInstanceOf(SQLException.class);
        assertThat(told).containsExactly(new Batch(3, 0, false));
        assertThat(count()).isZero();
        assertThat(writer.stats().batches()).isZero();
    }
}
