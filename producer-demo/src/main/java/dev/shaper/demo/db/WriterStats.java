package dev.shaper.demo.db;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the DB writer has done, readable from other threads while it runs: rows stored, rows skipped because
 * their id was already stored (replays), and the latency of each committed batch.
 */
public final class WriterStats {

    private final LongAdder rowsInserted = new LongAdder();
    private final LongAdder rowsSkipped = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final LatencyRecorder batchLatency = new LatencyRecorder();

    void batchCommitted(int rows, int inserted, long latencyMicros) {
        rowsInserted.add(inserted);
        rowsSkipped.add(rows - inserted);
        batches.increment();
        batchLatency.record(latencyMicros);
    }

    /** Rows the database committed. */
    public long rowsInserted() {
        return rowsInserted.sum();
    }

    /** Records whose id the table already held (replayed after a restart): not written again. */
    public long rowsSkipped() {
        return rowsSkipped.sum();
    }

    public long batches() {
        return batches.sum();
    }

    /** Time from the start of a batch's insert to its database commit, in microseconds. */
    public LatencyRecorder batchLatency() {
        return batchLatency;
    }

    /** One line: rows, batches and the batch latency percentiles in milliseconds. */
    public String summary(double seconds) {
        return String.format(Locale.ROOT,
                "%d rows inserted (%.1f rows/s over %.1f s), %d replayed rows skipped, %d batches;"
                        + " batch write latency p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms",
                rowsInserted(), seconds > 0 ? rowsInserted() / seconds : 0.0, seconds, rowsSkipped(), batches(),
                batchLatency.percentile(50) / 1000.0, batchLatency.percentile(95) / 1000.0,
                batchLatency.percentile(99) / 1000.0, batchLatency.percentile(100) / 1000.0);
    }
}
