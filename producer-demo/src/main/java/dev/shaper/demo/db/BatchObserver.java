package dev.shaper.demo.db;

/**
 * Told of every database batch the writer attempts, committed or not: a {@code FeedbackReporter}'s
 * {@code recordWrite} is one.
 */
@FunctionalInterface
public interface BatchObserver {

    /** Told nothing. */
    BatchObserver NONE = (units, latencyNanos, ok) -> {
    };

    /**
     * @param units        the batch's records' cost, in the units of the shaper's rates (see {@link RecordCost})
     * @param latencyNanos the batch's wall time, from the start of its insert to the end of its commit or failure
     * @param ok           whether the database committed it
     */
    void batchEnded(long units, long latencyNanos, boolean ok);
}
