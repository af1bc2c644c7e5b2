package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The densest windows, read back from a real (in-memory H2) table. */
class ReleaseWindowsTest {

    private final ShapedRowsTable table = new ShapedRowsTable("shaped_rows", ShapedRowsTable.Dialect.H2);
    private Connection connection;

    @BeforeEach
    void openDatabase() throws SQLException {
        connection = DriverManager.getConnection("jdbc:h2:mem:windows-" + UUID.randomUUID());
        table.createIfMissing(connection);
    }

    @AfterEach
    void closeDatabase() throws SQLException {
        connection.close();
    }

    @Test
    void shouldCountAllKeysTogetherWhenTheirReleasesInterleave() throws SQLException {
        // Given: keys a and b released in turn every 100 ms for 3 s (10 rows a second, 5 of each key); rows of
        // another run at the same times, and rows without a release time
        List<ShapedRow> rows = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String key = i % 2 == 0 ? "a" : "b";
            rows.add(new ShapedRow("run", key + ":" + i, key, i * 100L));
            rows.add(new ShapedRow("other", key + ":" + i, key, i * 100L));
            rows.add(new ShapedRow("run", key + ":late-" + i, key, null));
        }
        table.insertAbsent(connection, rows, 0);

        // When
        int allKeys = ReleaseWindows.densestOfAllKeys(connection, table, "run", 1_000);
        ReleaseWindows.Densest oneKey = ReleaseWindows.densest(connection, table, "run", 1_000);

        // Then: 10 in one second of all keys, 5 of the densest key
        assertThat(allKeys).isEqualTo(10);
        assertThat(oneKey).isEqualTo(new ReleaseWindows.Densest("a", 5));
    }

    @Test
    void shouldAnswerZeroWhenTheRunHasNoRows() throws SQLException {
        assertThat(ReleaseWindows.densestOfAllKeys(connection, table, "run", 1_000)).isZero();
    }
}
