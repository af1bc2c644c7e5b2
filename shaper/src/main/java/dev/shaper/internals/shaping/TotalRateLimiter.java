package dev.shaper.internals.shaping;

/**
 * The cap on all keys of one task together (its part of the database's capacity). A GCRA over the task's virtual
 * time: records that pass at once and records released from the queues both spend it. It paces the task within the
 * second; the ceiling over whole seconds is the window of releases its caller asks first (see
 * {@code CapacityPool#mayRelease}).
 *
 * <p>The drain releases queued records in due-time order until this limiter refuses, so the capacity is shared
 * among waiting keys in proportion to their own rates. The task's part may change between ticks (see
 * {@link #setRate}); what was spent stays spent. The limiter's memory is not persisted: after a restart it starts
 * full, which allows at most one tick of extra output.
 */
public final class TotalRateLimiter {

    private final boolean unlimited;
    /** The rate a backlog is estimated at when the current rate is lower: what the task can count on. */
    private double assuredRate;
    private double ratePerSecond;
    /** One unit's interval at {@link #ratePerSecond}: most records cost one unit, and the rate changes per tick. */
    private long unitIntervalNanos;
    private long tatNanos = Long.MIN_VALUE;
    /** The smoothing schedule: releases at most {@link #CATCH_UP_SPEED} times the rate beyond one step's worth. */
    private long smoothTatNanos = Long.MIN_VALUE;

    /**
     * How much faster than the clock a cap that fell behind makes up the time: fast enough to use the room a stall
     * left in the last second before it is gone; the ceiling's window of releases (which the caller asks before this
     * limiter) keeps every second within the rate plus one.
     */
    static final double CATCH_UP_SPEED = 2.0;
    /** How much time a cap that fell behind still owes at most: what it owed beyond is lost. */
    static final long MAX_OWED_NANOS = 1_000_000_000L;

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

    /**
     * The rate the task can count on from now on, whatever its rate now (its static share of a capacity that moved):
     * backlogs are estimated at no less than this.
     */
    public void setAssuredRate(double assuredRate) {
        this.assuredRate = assuredRate;
    }

    /** Whether an arriving record of {@code cost} may pass at once, as far as the total is concerned. */
    public boolean canPass(long nowNanos) {
        return unlimited || (ratePerSecond > 0 && tatNanos <= nowNanos + LeakyBucket.ARRIVAL_TOLERANCE_NANOS);
    }

    /** Spends {@code cost} units for a record that passed at once. */
    public void onPass(long nowNanos, long cost) {
        if (!unlimited && ratePerSecond > 0) {
            long interval = spend(cost);
            tatNanos = LeakyBucket.saturatedAdd(Math.max(tatNanos, nowNanos), interval);
            smoothTatNanos = LeakyBucket.saturatedAdd(Math.max(smoothTatNanos, nowNanos),
                    (long) (interval / CATCH_UP_SPEED));
        }
    }

    /**
     * Spends {@code cost} units for a queued record if the cap allows it now. Two schedules must both allow it:
     * the rate's, which remembers up to {@link #MAX_OWED_NANOS} that a stall kept from being used, so that the time
     * is made up and the rate is exact; and a smoothing one at {@link #CATCH_UP_SPEED} times the rate, which lets a
     * scan covering {@code stepNanos} (the caller bounds it: a longer stall is made up, not served at once) use that
     * step's worth and makes up what is owed at twice the rate, never in one burst.
     */
    public boolean tryRelease(long nowNanos, long stepNanos, long cost) {
        if (unlimited) {
            return true;
        }
        if (!(ratePerSecond > 0)) {
            return false;
        }
        long due = dueFrom(nowNanos, stepNanos);
        long smooth = smoothFrom(nowNanos, stepNanos);
        if (due > nowNanos || smooth > nowNanos) {
            return false;
        }
        long interval = spend(cost);
        tatNanos = LeakyBucket.saturatedAdd(due, interval);
        smoothTatNanos = LeakyBucket.saturatedAdd(smooth, (long) (interval / CATCH_UP_SPEED));
        return true;
    }

    /** Where the rate's schedule stands for a scan now: a fresh cap owes nothing, an old one at most what it may. */
    private long dueFrom(long nowNanos, long stepNanos) {
        return Math.max(tatNanos, tatNanos == Long.MIN_VALUE ? nowNanos - stepNanos : nowNanos - MAX_OWED_NANOS);
    }

    /** Where the smoothing schedule stands for a scan now: at most one step's worth may leave at once. */
    private long smoothFrom(long nowNanos, long stepNanos) {
        return Math.max(smoothTatNanos, nowNanos - stepNanos);
    }

    /**
     * About how many units {@link #tryRelease} would let leave now, with a scan covering {@code stepNanos}: at least
     * 1 while the cap is open, 0 once it is spent; infinite without a cap. For sharing a scan's part among bands.
     */
    public double availableUnits(long nowNanos, long stepNanos) {
        if (unlimited) {
            return Double.POSITIVE_INFINITY;
        }
        if (!(ratePerSecond > 0)) {
            return 0;
        }
        long due = dueFrom(nowNanos, stepNanos);
        long smooth = smoothFrom(nowNanos, stepNanos);
        if (due > nowNanos || smooth > nowNanos) {
            return 0;
        }
        double byRate = (nowNanos - due) * ratePerSecond / 1e9;
        double bySmoothing = (nowNanos - smooth) * ratePerSecond * CATCH_UP_SPEED / 1e9;
        return Math.min(byRate, bySmoothing) + 1;
    }

    /**
     * Gives up what the cap let accrue within the last {@code stepNanos} and nobody used, and returns it, in units: the
     * task had nothing more to release, and another task may use it instead.
     */
    public double forfeit(long nowNanos, long stepNanos) {
        if (unlimited || !(ratePerSecond > 0) || tatNanos >= nowNanos) {
            return 0;
        }
        // What the schedule let accrue up to now and nothing used (the one unit of slack a release may take is not
        // time that accrued).
        double unused = (nowNanos - Math.max(tatNanos, nowNanos - stepNanos)) * ratePerSecond / 1e9;
        tatNanos = nowNanos;
        smoothTatNanos = Math.max(smoothTatNanos, nowNanos);
        return Math.max(0, unused);
    }

    /**
     * How long, from {@code nowNanos}, the cap needs before a record behind {@code queuedUnits} units may leave:
     * the spend it has still to earn back, plus the queued units at the task's rate (no less than its assured rate);
     * 0 without a cap. It errs long, never short: queued records due after the new one count too, so a bound on the
     * wait refuses a record rather than let it wait longer than promised.
     */
    public long backlogNanos(long nowNanos, long queuedUnits) {
        return backlogNanos(nowNanos, queuedUnits, 0);
    }

    /**
     * Like {@link #backlogNanos(long, long)}, with nothing leaving for {@code heldNanos} from now whatever this cap
     * allows (the ceiling's last second is full).
     */
    public long backlogNanos(long nowNanos, long queuedUnits, long heldNanos) {
        if (unlimited) {
            return 0;
        }
        long owed = Math.max(owedNanos(nowNanos), heldNanos);
        return queuedUnits > 0 ? LeakyBucket.saturatedAdd(owed, interval(queuedUnits, estimateRate())) : owed;
    }

    /**
     * The rate {@link #backlogNanos} estimates a backlog at: the task's rate now, no less than its assured rate;
     * infinite without a cap. When it falls, records queued under a faster estimate may no longer make their bound.
     */
    public double estimateRate() {
        return unlimited ? Double.POSITIVE_INFINITY : Math.max(ratePerSecond, assuredRate);
    }

    /** The spend the cap has still to earn back from {@code nowNanos} before anything more may leave; 0 if none. */
    public long owedNanos(long nowNanos) {
        return !unlimited && tatNanos > nowNanos ? tatNanos - nowNanos : 0; // MIN_VALUE would wrap in tat - now
    }

    private long spend(long cost) {
        return cost == 1 ? unitIntervalNanos : interval(cost, ratePerSecond);
    }

    private static long interval(long cost, double rate) {
        return ShapingRule.intervalNanos(cost, rate);
    }
}
