package dev.shaper.internals.capacity;

import dev.shaper.internals.shaping.ReleaseWindow;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.shaping.TotalRateLimiter;
import dev.shaper.internals.shaping.WindowCurve;
import java.util.Arrays;

/**
 * One task's part of the total rate, and the limiter that spends it. With a {@link CapacityPool}, the part follows
 * the task's demand: each tick the task reports what it could use, and takes the rate the pool gives it.
 *
 * <p>The demand is what the task used lately (averaged over half a second), plus a little, plus what it has queued
 * spread over {@link #DRAIN_SECONDS}, but no more than its waiting keys' own rates allow: a task with a backlog asks
 * for enough to work it off, a task without one for what it uses.
 * A task that had less to release than its part allowed gives the rest up to the pool at the end of its tick, and a
 * task its part holds back takes such spare units: so what one task leaves within a tick is not lost. The demand is
 * reported priority by priority (its keys' rules'), so that the pool serves priority 0 across tasks first.
 */
public final class TaskCapacity {

    /** Of what a task used, how much more it asks for: room for its traffic to grow before the next tick. */
    private static final double GROWTH = 1.02;
    /** The time a task asks for to work off what it has queued. */
    static final double DRAIN_SECONDS = 1.0;

    private final CapacityPool pool;
    private final CapacityPool.Member member;
    private final TotalRateLimiter limiter;
    /**
     * A fixed part's own releases over the last second, held below the part plus one; null in a pool (the pool holds
     * the instance's) and without a cap.
     */
    private final ReleaseWindow ownReleases;
    private final long ownLimit;
    /** The time over which the rate a task used is averaged. */
    static final double USE_AVERAGING_SECONDS = 0.5;
    /** The rate used, averaged, by priority. */
    private final double[] usedRate = new double[ShapingRule.LOWEST_PRIORITY + 1];
    /** Units used since the last tick, by priority. */
    private final long[] usedUnits = new long[ShapingRule.LOWEST_PRIORITY + 1];
    private long lastTickWallMs;

    private TaskCapacity(CapacityPool pool, CapacityPool.Member member, TotalRateLimiter limiter, long wallNowMs) {
        this.pool = pool;
        this.member = member;
        this.limiter = limiter;
        this.lastTickWallMs = wallNowMs;
        boolean ownCeiling = pool == null && !limiter.isUnlimited();
        this.ownReleases = ownCeiling ? new ReleaseWindow() : null;
        this.ownLimit = ownCeiling ? (long) Math.floor(limiter.rate()) + 1 : 0;
    }

    /**
     * A fixed part: {@code ratePerSecond} (0 or less: no cap), whatever the task's demand. No second of the task's
     * releases holds more than the part plus one.
     */
    public static TaskCapacity fixed(double ratePerSecond) {
        return new TaskCapacity(null, null, new TotalRateLimiter(ratePerSecond), 0);
    }

    /**
     * A part of {@code pool}, by demand; the task starts with what the pool gives a task asking its static share.
     *
     * @param partition the task's input partition
     */
    public static TaskCapacity pooled(CapacityPool pool, int partition, long wallNowMs) {
        CapacityPool.Member member = pool.join(partition);
        double staticShare = pool.staticShare();
        TotalRateLimiter limiter = new TotalRateLimiter(staticShare, staticShare);
        limiter.setRate(member.update(PriorityDemand.ofHighest(staticShare)));
        return new TaskCapacity(pool, member, limiter, wallNowMs);
    }

    /** The limiter the task's records spend this part through. */
    public TotalRateLimiter limiter() {
        return limiter;
    }

    /**
     * Whether a record of this task may leave at {@code wallMs} under the ceiling: the instance's pool, or this task's
     * fixed part, held over every second (see {@link CapacityPool#mayRelease}); always without a cap.
     */
    public boolean mayRelease(long wallMs) {
        if (pool != null) {
            return pool.mayRelease(wallMs);
        }
        return ownReleases == null || ownReleases.holdsLessThan(wallMs, ownLimit);
    }

    /**
     * How many units the ceiling lets this task release at {@code wallMs}, at most (see {@link #mayRelease}); infinite
     * without a cap. A release scan shares this, not more, among its bands.
     */
    public double room(long wallMs) {
        if (pool != null) {
            return pool.room(wallMs);
        }
        return ownReleases == null ? Double.POSITIVE_INFINITY : Math.max(0, ownLimit - ownReleases.heldAt(wallMs));
    }

    /**
     * How long from {@code wallMs} until the ceiling lets a release go again (see {@link #mayRelease}): 0 while the
     * last second has room; after a fall of the capacity, until the releases made at the larger one have left it.
     */
    public long msUntilRoom(long wallMs) {
        if (pool != null) {
            return pool.msUntilRoom(wallMs);
        }
        return ownReleases == null ? 0 : ownReleases.msUntilBelow(wallMs, ownLimit);
    }

    /**
     * When the units still to come of the instance (of this task without a pool) may leave under the ceiling, from
     * {@code wallMs} on; {@link WindowCurve#OPEN} without a cap.
     */
    public WindowCurve ceilingCurve(long wallMs) {
        if (pool != null) {
            return pool.ceilingCurve(wallMs);
        }
        return ownReleases == null ? WindowCurve.OPEN : ownReleases.curve(wallMs, ownLimit);
    }

    /**
     * How many of the instance's units leave for each of this task's, while the task has its part: the pool over
     * the task's rate; 1 without a pool.
     */
    public double instanceUnitsPerTaskUnit() {
        if (pool == null || !(limiter.rate() > 0)) {
            return 1;
        }
        return Math.max(1, pool.pooled() / Math.max(limiter.rate(), pool.staticShare()));
    }

    /** {@code units} of {@code priority} left at {@code wallMs}, at once or from the queues. */
    public void used(long units, int priority, long wallMs) {
        usedUnits[priority] += units;
        if (pool != null) {
            pool.released(wallMs, units);
        } else if (ownReleases != null) {
            ownReleases.record(wallMs, units);
        }
    }

    /** Whether the task's part comes from a pool by demand: only then does {@link #tick} need the queues' figures. */
    public boolean isPooled() {
        return member != null;
    }

    /**
     * Whether {@code cost} units of {@code priority} may leave at {@code wallMs} beyond the task's own part, from what
     * other tasks of the instance gave up or the instance as a whole is behind its pool; they count as used.
     */
    public boolean takeSpare(long cost, int priority, long wallMs) {
        if (pool == null || !pool.takeSpare(cost, priority, wallMs)) {
            return false;
        }
        used(cost, priority, wallMs);
        return true;
    }

    /**
     * At the start of a tick: reports the demand since the last one and takes the part for the next.
     *
     * @param queuedUnits  what the task has queued now, by priority (index: priority)
     * @param waitingRates the rates of the keys with records queued, together, by priority: the queues drain no
     *                     faster than that, however much they hold
     */
    public void tick(long wallNowMs, long[] queuedUnits, double[] waitingRates) {
        if (member == null) {
            return;
        }
        double elapsedSeconds = Math.max(1, wallNowMs - lastTickWallMs) / 1000.0;
        // What one short tick used says little (one record or two is 50/s or 100/s at a 20 ms tick): the rate used
        // is averaged over about USE_AVERAGING_SECONDS, so that shares do not swing from tick to tick.
        double weight = Math.min(1, elapsedSeconds / USE_AVERAGING_SECONDS);
        double[] demand = new double[usedUnits.length];
        for (int p = 0; p < demand.length; p++) {
            usedRate[p] += weight * (usedUnits[p] / elapsedSeconds - usedRate[p]);
            long queued = p < queuedUnits.length ? queuedUnits[p] : 0;
            double waitingRate = p < waitingRates.length ? waitingRates[p] : 0;
            demand[p] = Math.min(usedRate[p] * GROWTH + queued / DRAIN_SECONDS,
                    Math.max(usedRate[p], waitingRate) * GROWTH);
        }
        limiter.setRate(member.update(PriorityDemand.of(demand)));
        // What the task can count on follows the capacity: after a cut of C, waits are estimated at the new share.
        limiter.setAssuredRate(pool.staticShare());
        Arrays.fill(usedUnits, 0);
        lastTickWallMs = wallNowMs;
    }

    /**
     * At the end of a tick whose release the cap did not hold back: what the task's part would still let leave goes
     * to the pool's spare units, for at most {@code horizonSeconds}.
     */
    public void giveUpUnused(long nowNanos, long stepNanos, double horizonSeconds) {
        if (pool != null) {
            pool.depositSpare(limiter.forfeit(nowNanos, stepNanos), horizonSeconds);
        }
    }

    /** The lowest priority (highest number) the capacity reaches now; every priority without a pool. */
    public int servedPriority() {
        return pool == null ? Integer.MAX_VALUE : pool.servedPriority();
    }

    /** The task closed: its part returns to the pool. */
    public void close() {
        if (member != null) {
            member.leave();
        }
    }
}
