package dev.shaper.internals.shaping;

/**
 * The cap on all keys of one task together (its part of the database's capacity). A GCRA over the task's virtual
 * time: records that pass at once and records released from the queues both spend it.
 *
 * <p>The drain releases queued records in due-time order until this limiter refuses, so the capacity is shared
 * among waiting keys in proportion to their own rates. The task's part may change between ticks (see
 * {@link #setRate}); what was spent stays spent. The limiter's memory is not persisted: after a restart it starts
 * full, which allows at most one tick of extra output.
 */
public final class TotalRateLimiter {

    private final boolean unlimited;
    /** The rate a backlog is estimated at when the current rate is lower: what the task can count on. */
    private final double assuredRate;
    private double ratePerSecond;
    /** One unit's interval at {@link #ratePerSecond}: most records cost one unit, and the rate changes per tick. */
    private long unitIntervalNanos;
    private long tatNanos = Long.MIN_VALUE;

    /** @param ratePerSecond units per second for this task; 0 or less means no cap */
    public TotalRateLimiter(double ratePerSecond) {
        this(ratePerSecond, ratePerSecond);
    }

    /**
     * A cap whose rate may change ({@link #setRate}).
     *
     * @param ratePerSecond units per second for this task now; 0 or less means no cap, for good
     * @param assuredRate   the rate the task can count on over time, whatever its rate now: backlogs are estimated
     *                      at no less than this
     */
    public TotalRateLimiter(double ratePerSecond, double assuredRate) {
        this.unlimited = !(ratePerSecond > 0);
        this.assuredRate = assuredRate;
        setRate(ratePerSecond);
    }

    public boolean isUnlimited() {
        return unlimited;
    }

    /** The task's rate from now on; 0 holds every record back until a later change. No effect without a cap. */
    public void setRate(double ratePerSecond) {
        this.ratePerSecond = Math.max(0, ratePerSecond);
        this.unitIntervalNanos = this.ratePerSecond > 0 ? ShapingRule.intervalNanos(1, this.ratePerSecond) : 0;
    }

    public double rate() {
        return ratePerSecond;
    }

    /** Whether an arriving record of {@code cost} may pass at once, as far as the total is concerned. */
    public boolean canPass(long nowNanos) {
        return unlimited || (ratePerSecond > 0 && tatNanos <= nowNanos + LeakyBucket.ARRIVAL_TOLERANCE_NANOS);
    }

    /** Spends {@code cost} units for a record that passed at once. */
    public void onPass(long nowNanos, long cost) {
        if (!unlimited && ratePerSecond > 0) {
            tatNanos = LeakyBucket.saturatedAdd(Math.max(tatNanos, nowNanos), spend(cost));
        }
    }

    /**
     * Spends {@code cost} units for a queued record if the cap allows it now. A drain that covers
     * {@code stepNanos} of virtual time may use that whole step's worth, no more.
     */
    public boolean tryRelease(long nowNanos, long stepNanos, long cost) {
        if (unlimited) {
            return true;
        }
        if (!(ratePerSecond > 0) || tatNanos > nowNanos) {
            return false;
        }
        tatNanos = LeakyBucket.saturatedAdd(Math.max(tatNanos, nowNanos - stepNanos), spend(cost));
        return true;
    }

    /**
     * How long, from {@code nowNanos}, the cap needs before a record behind {@code queuedUnits} units may leave:
     * the spend it has still to earn back, plus the queued units at the task's rate (no less than its assured rate);
     * 0 without a cap. It errs long, never short: queued records due after the new one count too, so a bound on the
     * wait refuses a record rather than let it wait longer than promised.
     */
    public long backlogNanos(long nowNanos, long queuedUnits) {
        if (unlimited) {
            return 0;
        }
        long owed = tatNanos > nowNanos ? tatNanos - nowNanos : 0; // not max(0, tat - now): MIN_VALUE would wrap
        double rate = Math.max(ratePerSecond, assuredRate);
        return queuedUnits > 0 ? LeakyBucket.saturatedAdd(owed, interval(queuedUnits, rate)) : owed;
    }

    private long spend(long cost) {
        return cost == 1 ? unitIntervalNanos : interval(cost, ratePerSecond);
    }

    private static long interval(long cost, double rate) {
        return ShapingRule.intervalNanos(cost, rate);
    }
}
