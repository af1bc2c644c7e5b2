package dev.shaper.internals.shaping;

/**
 * The cap on all keys of one task together (the database's capacity, split across tasks). A GCRA over the
 * task's virtual time: records that pass at once and records released from the queues both spend it.
 *
 * <p>The drain releases queued records in due-time order until this limiter refuses, so the capacity is
 * shared among waiting keys in proportion to their own rates. The limiter's memory is not persisted: after
 * a restart it starts full, which allows at most one tick of extra output.
 */
public final class TotalRateLimiter {

    private final double ratePerSecond;
    private long tatNanos = Long.MIN_VALUE;

    /** @param ratePerSecond units per second for this task; 0 or less means no cap */
    public TotalRateLimiter(double ratePerSecond) {
        this.ratePerSecond = ratePerSecond;
    }

    public boolean isUnlimited() {
        return !(ratePerSecond > 0);
    }

    /** Whether an arriving record of {@code cost} may pass at once, as far as the total is concerned. */
    public boolean canPass(long nowNanos) {
        return isUnlimited() || tatNanos <= nowNanos + LeakyBucket.ARRIVAL_TOLERANCE_NANOS;
    }

    /** Spends {@code cost} units for a record that passed at once. */
    public void onPass(long nowNanos, long cost) {
        if (!isUnlimited()) {
            tatNanos = LeakyBucket.saturatedAdd(Math.max(tatNanos, nowNanos), interval(cost));
        }
    }

    /**
     * Spends {@code cost} units for a queued record if the cap allows it now. A drain that covers
     * {@code stepNanos} of virtual time may use that whole step's worth, no more.
     */
    public boolean tryRelease(long nowNanos, long stepNanos, long cost) {
        if (isUnlimited()) {
            return true;
        }
        if (tatNanos > nowNanos) {
            return false;
        }
        tatNanos = LeakyBucket.saturatedAdd(Math.max(tatNanos, nowNanos - stepNanos), interval(cost));
        return true;
    }

    private long interval(long cost) {
        return ShapingRule.intervalNanos(cost, ratePerSecond);
    }
}
