package dev.shaper.internals.capacity;

import dev.shaper.internals.shaping.TotalRateLimiter;

/**
 * One task's part of the total rate, and the limiter that spends it. With a {@link CapacityPool}, the part follows
 * the task's demand: each tick the task reports what it could use, and takes the rate the pool gives it.
 *
 * <p>The demand is read from what happened since the last tick. A task the cap held back (a record could not pass
 * at once, or a release scan stopped at the cap) asks for twice what it used or had, at least its static share, so
 * a busy task's part grows in a few ticks; a task the cap did not hold back asks for a quarter more than it used, so
 * what it does not need goes to the others.
 */
public final class TaskCapacity {

    /** Of what a task used, how much more it asks for while the cap does not hold it back. */
    private static final double SPARE = 1.25;

    private final CapacityPool.Member member;
    private final double staticShare;
    private final TotalRateLimiter limiter;
    private long usedUnits;
    private boolean heldBack;
    private long lastTickWallMs;

    private TaskCapacity(CapacityPool.Member member, double staticShare, TotalRateLimiter limiter, long wallNowMs) {
        this.member = member;
        this.staticShare = staticShare;
        this.limiter = limiter;
        this.lastTickWallMs = wallNowMs;
    }

    /** A fixed part: {@code ratePerSecond} (0 or less: no cap), whatever the task's demand. */
    public static TaskCapacity fixed(double ratePerSecond) {
        return new TaskCapacity(null, ratePerSecond, new TotalRateLimiter(ratePerSecond), 0);
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
        limiter.setRate(member.update(staticShare));
        return new TaskCapacity(member, staticShare, limiter, wallNowMs);
    }

    /** The limiter the task's records spend this part through. */
    public TotalRateLimiter limiter() {
        return limiter;
    }

    /** {@code units} left, at once or from the queues. */
    public void used(long units) {
        usedUnits += units;
    }

    /** The cap held a record back. */
    public void heldBack() {
        heldBack = true;
    }

    /** At the start of a tick: reports the demand since the last one and takes the part for the next. */
    public void tick(long wallNowMs) {
        if (member == null) {
            return;
        }
        double elapsedSeconds = Math.max(1, wallNowMs - lastTickWallMs) / 1000.0;
        double usedRate = usedUnits / elapsedSeconds;
        double demand = heldBack ? Math.max(2 * Math.max(usedRate, limiter.rate()), staticShare) : usedRate * SPARE;
        limiter.setRate(member.update(demand));
        usedUnits = 0;
        heldBack = false;
        lastTickWallMs = wallNowMs;
    }

    /** The task closed: its part returns to the pool. */
    public void close() {
        if (member != null) {
            member.leave();
        }
    }
}
