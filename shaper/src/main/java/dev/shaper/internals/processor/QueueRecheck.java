package dev.shaper.internals.processor;

/**
 * When a task's queued records must be checked against their bounds again. An arriving record is queued only if it
 * can leave in time at the rate the task's backlog drains at then (its estimate); some may no longer make it once
 * that rate falls below the fastest one a queued record was accepted at (a cut of the capacity, a smaller part of
 * it). The check is a pass over the task's queue, so it runs at most once per {@link #MIN_INTERVAL_MS}, and no more
 * often than keeps its cost within 1/{@link #BUDGET_FACTOR} of the stream thread's time; until then a record past its
 * bound still expires, never released late. A stall of the release is not a reason to check: the stalls that
 * follow it would make late what the check let stay, at the price of a pass over the queue each time.
 */
final class QueueRecheck {

    /** The shortest time between two checks. */
    static final long MIN_INTERVAL_MS = 100;
    /** A check that took {@code d} is not followed by another for {@code BUDGET_FACTOR x d}. */
    static final long BUDGET_FACTOR = 50;
    /** A fall smaller than this share of the rate is rounding and the rate's jitter, not a cut. */
    static final double FALL_TOLERANCE = 0.01;

    /** The fastest estimate a record still queued was accepted at (or last checked at); 0 when none is queued. */
    private double checkedRate;
    private long nextCheckWallMs = Long.MIN_VALUE;

    /** A record was queued, accepted at {@code estimateRate}. */
    void queuedAt(double estimateRate) {
        checkedRate = Math.max(checkedRate, estimateRate);
    }

    /**
     * Whether the queued records should be checked now, the task's estimate being {@code estimateRate} and
     * {@code queuedRecords} queued.
     */
    boolean isDue(double estimateRate, long queuedRecords, long wallNowMs) {
        if (queuedRecords <= 0) {
            checkedRate = 0;
            return false;
        }
        return estimateRate < checkedRate * (1 - FALL_TOLERANCE) && wallNowMs >= nextCheckWallMs;
    }

    /** The queued records were checked at {@code estimateRate}; the check took {@code tookNanos}. */
    void checked(double estimateRate, long wallNowMs, long tookNanos) {
        checkedRate = estimateRate;
        nextCheckWallMs = wallNowMs + Math.max(MIN_INTERVAL_MS, BUDGET_FACTOR * tookNanos / 1_000_000L);
    }
}
