package dev.shaper.demo.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;

/**
 * Reads back what the database received and finds its densest windows by the shaper's release time: of any key
 * (at most the key's rate + 1 per second) and of all keys together (at most the total rate and one tick's worth):
 * the figures that show whether the database was protected.
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

    /** The most rows of run {@code runId}, all keys together, released within any {@code windowMs} window. */
    public static int densestOfAllKeys(Connection connection, ShapedRowsTable table, String runId, long windowMs)
            throws SQLException {
        String sql = "SELECT released_ms FROM " + table.name()
                + " WHERE run_id = ? AND released_ms IS NOT NULL ORDER BY released_ms";
        int most = 0;
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, runId);
            try (ResultSet rows = select.executeQuery()) {
                ArrayDeque<Long> window = new ArrayDeque<>();
                while (rows.next()) {
                    long released = rows.getLong(1);
                    window.addLast(released);
                    while (window.peekFirst() <= released - windowMs) {
                        window.removeFirst();
                    }
                    most = Math.max(most, window.size());
                }
            }
        }
        return most;
    }
}
