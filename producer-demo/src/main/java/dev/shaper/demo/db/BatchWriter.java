package dev.shaper.demo.db;

import dev.shaper.demo.traffic.Ticker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * Writes one batch of rows in one database transaction: inserts the rows whose ids are absent, commits, and tells
 * {@link WriterStats} and a {@link BatchObserver} how it went and how long it took, from the start of the insert
 * to the end of the commit (or of the rollback, for a batch the database refused). A {@link DbSlowdown} holds the
 * transactions of the batches it covers open longer before their commit; that time counts in their latency, as
 * a slow database's would. Used by one thread at a time.
 */
public final class BatchWriter implements AutoCloseable {

    private final Connection connection;
    private final ShapedRowsTable table;
    private final Clock clock;
    private final Ticker ticker;
    private final DbSlowdown slowdown;
    private final BatchObserver observer;
    private final WriterStats stats = new WriterStats();
    private final long startNanos;

    /** A writer on the real clock, with no slowdown, that tells no one but its stats. */
    public BatchWriter(Connection connection, ShapedRowsTable table, Clock clock) throws SQLException {
        this(connection, table, clock, Ticker.SYSTEM, null, BatchObserver.NONE);
    }

    /**
     * Creates the table if it is missing; the writer's start, which a slowdown counts from, is now.
     *
     * @param connection an open connection the writer owns from now on (closed by {@link #close()})
     * @param clock      the wall clock of the rows' {@code written_ms}
     * @param ticker     the clock of the batches' latency and of the slowdown, and what waits out its delay
     * @param slowdown   the fault to inject, or null for none
     */
    public BatchWriter(Connection connection, ShapedRowsTable table, Clock clock, Ticker ticker, DbSlowdown slowdown,
                       BatchObserver observer) throws SQLException {
        this.connection = connection;
        this.table = table;
        this.clock = clock;
        this.ticker = ticker;
        this.slowdown = slowdown;
        this.observer = observer;
        connection.setAutoCommit(false);
        table.createIfMissing(connection);
        connection.commit();
        this.startNanos = ticker.nanoTime();
    }

    /**
     * Writes {@code rows} in one transaction.
     *
     * @param units the rows' records' cost, for the observer
     * @return how many rows were new
     * @throws SQLException what the database refused; the transaction is rolled back
     */
    public int write(List<ShapedRow> rows, long units) throws SQLException {
        long start = ticker.nanoTime();
        int inserted;
        try {
            inserted = table.insertAbsent(connection, rows, clock.millis());
            holdIfSlowedDown(start);
            connection.commit();
        } catch (SQLException e) {
            rollbackQuietly(e);
            observer.batchEnded(units, ticker.nanoTime() - start, false);
            throw e;
        }
        long latencyNanos = ticker.nanoTime() - start;
        stats.batchCommitted(rows.size(), inserted, latencyNanos / 1000);
        observer.batchEnded(units, latencyNanos, true);
        return inserted;
    }

    /** Waits out the slowdown's extra delay if it covers the batch that began at {@code batchStartNanos}. */
    private void holdIfSlowedDown(long batchStartNanos) {
        long extraNanos = slowdown == null ? 0 : slowdown.extraDelayNanos(batchStartNanos - startNanos);
        long until = ticker.nanoTime() + extraNanos;
        // The ticker may wake early; an interrupt (a stop) ends the wait instead of spinning through it.
        for (long left = extraNanos; left > 0 && !Thread.currentThread().isInterrupted();
             left = until - ticker.nanoTime()) {
            ticker.sleepNanos(left);
        }
    }

    private void rollbackQuietly(SQLException cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    public WriterStats stats() {
        return stats;
    }

    /** Closes the connection; nothing uncommitted is left between batches, so a failing close loses nothing. */
    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // See above: nothing to lose.
        }
    }
}
