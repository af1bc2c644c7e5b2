package dev.shaper.demo.db;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The databases the DB writer's integration tests run against: the embedded H2 and the real PostgreSQL on
 * 127.0.0.1:5432 (database {@code test}, trust authentication, user {@code postgres}; override with
 * {@code -Dshaper.test.postgres.url=...} and {@code -Dshaper.test.postgres.user=...}). An unreachable
 * PostgreSQL fails the test, naming what was tried: it is never skipped.
 */
final class DatabaseTargets {

    static final String POSTGRES_URL = System.getProperty("shaper.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test");
    static final String POSTGRES_USER = System.getProperty("shaper.test.postgres.user", "postgres");

    private DatabaseTargets() {
    }

    /** A target by name: {@code h2} (a fresh in-memory database) or {@code postgresql}. */
    static JdbcTarget named(String name) {
        return switch (name) {
            case "h2" -> new JdbcTarget("jdbc:h2:mem:writer-it-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", null,
                    null);
            case "postgresql" -> new JdbcTarget(POSTGRES_URL, POSTGRES_USER, null);
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** A connection, or a test failure that says which database was unreachable and how to point elsewhere. */
    static Connection connect(JdbcTarget target) {
        try {
            return target.connect();
        } catch (SQLException e) {
            return fail("cannot connect to " + target + " (" + e.getMessage() + "). The DB writer test needs a"
                    + " running PostgreSQL with a database 'test' that accepts user " + POSTGRES_USER + " (trust"
                    + " authentication); set -Dshaper.test.postgres.url / -Dshaper.test.postgres.user to use"
                    + " another one.");
        }
    }

    /** A table name no other run uses, so runs against a shared PostgreSQL never see each other's rows. */
    static String freshTableName() {
        return "shaped_rows_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }
}
