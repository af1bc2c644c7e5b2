package dev.shaper.demo.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;

/**
 * Reads back what the database received and finds the densest window of any key, by the shaper's release
 * time: the figure that shows whether the database was protected (at most the rate + 1 per second per key).
 */
public final class ReleaseWindows {

    /**
     * @param key   the densest key, or null when no row has a release time
     * @param count its rows released within one window
     */
    public record Densest(String key, int count) {
    }

    private ReleaseWindows() {
    }

    /** The key with the most rows of run {@code runId} released within any {@code windowMs} window. */
    public static Densest densest(Connection connection, ShapedRowsTable table, String runId, long windowMs)
            throws SQLException {
        String sql = "SELECT record_key, released_ms FROM " + table.name()
                + " WHERE run_id = ? AND released_ms IS NOT NULL ORDER BY record_key, released_ms";
        Densest best = new Densest(null, 0);
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                String key = null;
                ArrayDeque<Long> window = new ArrayDeque<>();
                while (rows.next()) {
                    String rowKey = rows.getString(1);
                    long released = rows.getLong(2);
                    if (!rowKey.equals(key)) {
                        key = rowKey;
                        window.clear();
                    }
                    window.addLast(released);
                    // Half-open window [released - windowMs + 1, released]: what one window of length windowMs holds.
                    while (window.peekFirst() <= released - windowMs) {
                        window.removeFirst();
                    }
                    if (window.size() > best.count()) {
                        best = new Densest(key, window.size());
                    }
                }
            }
        }
        return best;
    }
}
