package dev.shaper.internals.capacity;

/**
 * The instance's releases, all tasks together, against the pool's rate over the last moments of wall time: whether
 * the instance as a whole has fallen behind its pool. The tasks' own parts add up to the pool, but each moves at its
 * own tick and a task's part follows its demand a tick late, so the instance releases a little less than its pool
 * while some task has more queued; a task its part holds back may take what the instance as a whole is behind. Only
 * the last {@link #MEMORY_NANOS} count: a stall of the stream thread is the tasks' own limiters' to make up, and the
 * ceiling's window of the last second bounds whatever leaves. Not thread-safe: the pool guards it.
 */
final class PoolPace {

    /** How much of the pool's time the pace remembers: a few ticks, not a stall. */
    static final long MEMORY_NANOS = 100_000_000L;

    /** When the instance's releases so far would have been due at the pool's rate; MIN_VALUE before any. */
    private long tatNanos = Long.MIN_VALUE;

    /** {@code units} left at {@code wallMs} with the pool at {@code poolPerSecond}. */
    void released(long wallMs, long units, double poolPerSecond) {
        if (!(poolPerSecond > 0)) {
            return;
        }
        long wallNanos = wallMs * 1_000_000L;
        long from = tatNanos == Long.MIN_VALUE ? wallNanos : Math.max(tatNanos, wallNanos - MEMORY_NANOS);
        tatNanos = from + (long) (units * 1e9 / poolPerSecond);
    }

    /** Whether at {@code wallMs} the instance has released less than its pool allowed over the remembered time. */
    boolean behind(long wallMs) {
        return tatNanos != Long.MIN_VALUE && tatNanos < wallMs * 1_000_000L;
    }
}
