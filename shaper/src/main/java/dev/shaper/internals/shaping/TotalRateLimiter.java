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

    /**
     * How long, from {@code nowNanos}, the cap needs before a record behind {@code queuedUnits} units may leave:
     * the spend it has still to earn back, plus the queued units at the cap's rate; 0 without a cap. It errs long,
     * never short: queued records due after the new one count too, so a bound on the wait refuses a record rather
     * than let it wait longer than promised.
     */
    public long backlogNanos(long nowNanos, long queuedUnits) {
        if (isUnlimited()) {
            return 0;
        }
        long owed = tatNanos > nowNanos ? tatNanos - nowNanos : 0; // not max(0, tat - now): MIN_VALUE would wrap
        return queuedUnits > 0 ? LeakyBucket.saturatedAdd(owed, interval(queuedUnits)) : owed;
    }

    private long interval(long cost) {
        return ShapingRule.intervalNanos(cost, ratePerSecond);
    }
}
