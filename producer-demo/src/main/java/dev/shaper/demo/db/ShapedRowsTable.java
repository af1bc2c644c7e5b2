package dev.shaper.demo.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The table the DB writer fills, and the SQL for it on PostgreSQL and H2.
 *
 * <p>The primary key is the record's id ({@code run_id}, {@code record_id}), and the insert does nothing when
 * that id is already there: on PostgreSQL {@code INSERT ... ON CONFLICT DO NOTHING} (safe under concurrent
 * writers), on H2 a standard {@code MERGE ... WHEN NOT MATCHED THEN INSERT}. So a batch that is written again
 * after a crash (the writer commits Kafka offsets only after the database commit) adds no duplicate rows; the
 * update count of such an insert is 0, which is how the writer counts replays.
 */
public final class ShapedRowsTable {

    /** The default table name. */
    public static final String DEFAULT_NAME = "shaped_rows";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** The databases the writer knows the insert-if-absent statement of, told apart by JDBC URL. */
    public enum Dialect {
        POSTGRESQL("jdbc:postgresql:"),
        H2("jdbc:h2:");

        private final String urlPrefix;

        Dialect(String urlPrefix) {
            this.urlPrefix = urlPrefix;
        }

        /** The dialect of a JDBC URL; {@link IllegalArgumentException} naming the supported ones otherwise. */
        public static Dialect ofUrl(String jdbcUrl) {
            for (Dialect d : values()) {
                if (jdbcUrl.startsWith(d.urlPrefix)) {
                    return d;
                }
            }
            throw new IllegalArgumentException("unsupported JDBC URL '" + jdbcUrl
                    + "'; expected jdbc:postgresql://host:port/database or jdbc:h2:...");
        }
    }

    private final String name;
    private final Dialect dialect;

    public ShapedRowsTable(String name, Dialect dialect) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid table name '" + name
                    + "'; expected a letter or '_' followed by letters, digits or '_' (at most 63)");
        }
        this.name = name;
        this.dialect = dialect;
    }

    public String name() {
        return name;
    }

    /** Creates the table unless it exists (an existing table is used as it is). */
    public void createIfMissing(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + name + " ("
                    + "run_id VARCHAR(64) NOT NULL, "
                    + "record_id VARCHAR(300) NOT NULL, "
                    + "record_key VARCHAR(256) NOT NULL, "
                    + "released_ms BIGINT, "
                    + "written_ms BIGINT NOT NULL, "
                    + "PRIMARY KEY (run_id, record_id))");
        }
    }

    /**
     * Adds the rows absent from the table as one JDBC batch, stamped {@code writtenMs}, without committing.
     *
     * @return how many rows were new (the others were there already: a replay)
     */
    public int insertAbsent(Connection connection, List<ShapedRow> rows, long writtenMs) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(insertSql())) {
            for (ShapedRow row : rows) {
                insert.setString(1, row.runId());
                insert.setString(2, row.recordId());
                insert.setString(3, row.recordKey());
                if (row.releasedMs() == null) {
                    insert.setNull(4, Types.BIGINT);
                } else {
                    insert.setLong(4, row.releasedMs());
                }
                insert.setLong(5, writtenMs);
                insert.addBatch();
            }
            int inserted = 0;
            for (int count : insert.executeBatch()) {
                inserted += Math.max(count, 0);
            }
            return inserted;
        }
    }

    String insertSql() {
        String columns = "run_id, record_id, record_key, released_ms, written_ms";
        return switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + name + " (" + columns + ") VALUES (?, ?, ?, ?, ?)"
                    + " ON CONFLICT (run_id, record_id) DO NOTHING";
            case H2 -> "MERGE INTO " + name + " t USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR),"
                    + " CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT)))"
                    + " s(run_id, record_id, record_key, released_ms, written_ms)"
                    + " ON t.run_id = s.run_id AND t.record_id = s.record_id"
                    + " WHEN NOT MATCHED THEN INSERT (" + columns + ")"
                    + " VALUES (s.run_id, s.record_id, s.record_key, s.released_ms, s.written_ms)";
        };
    }
}
