package dev.shaper.demo.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A database to write to: JDBC URL and credentials. The URL decides the SQL dialect, and is checked when
 * the target is made, so a typo fails before anything starts.
 *
 * @param url      {@code jdbc:postgresql://...} or {@code jdbc:h2:...}
 * @param user     user name, or null
 * @param password password, or null
 */
public record JdbcTarget(String url, String user, String password) {

    public JdbcTarget {
        ShapedRowsTable.Dialect.ofUrl(url);
    }

    public ShapedRowsTable.Dialect dialect() {
        return ShapedRowsTable.Dialect.ofUrl(url);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** The URL without any password it may hold, for messages. */
    @Override
    public String toString() {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***") + (user == null ? "" : " as " + user);
    }
}
