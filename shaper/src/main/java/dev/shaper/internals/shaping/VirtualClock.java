package dev.shaper.internals.shaping;

/**
 * The time a task schedules in. It follows the wall clock, except that one punctuation can move it by
 * at most {@code maxStepMs} ({@code shaper.shaping.catchup.max.ms}): when the punctuator stalls (a GC pause, an overloaded thread, a restart,
 * a rebalance) the queues simply resume where they were, at their rate, instead of releasing everything
 * that fell due meanwhile in one catch-up burst.
 *
 * <p>The virtual time is persisted with the task's state, so it also survives a crash.
 */
public final class VirtualClock {

    private final long maxStepNanos;
    private long virtualNanos;
    private long wallAtLastAdvanceMs;
    /** The latest time {@link #peek} showed: the clock never advances to before it. */
    private long seenNanos = Long.MIN_VALUE;

    /**
     * @param startVirtualNanos the persisted virtual time, or {@code null} for a task that never ran: it then
     *                          starts at the wall clock
     */
    public VirtualClock(long maxStepMs, Long startVirtualNanos, long wallNowMs) {
        if (maxStepMs <= 0) {
            throw new IllegalArgumentException("maxStepMs must be > 0, got " + maxStepMs);
        }
        this.maxStepNanos = maxStepMs * 1_000_000L;
        this.virtualNanos = startVirtualNanos != null ? startVirtualNanos : wallNowMs * 1_000_000L;
        this.wallAtLastAdvanceMs = wallNowMs;
    }

    /**
     * The virtual time at wall time {@code wallNowMs}, as an arrival sees it. It does not move the clock, but the next
     * {@link #advance} reaches at least it: the time arrivals see never goes back.
     */
    public long peek(long wallNowMs) {
        return peek(wallNowMs, maxStepNanos);
    }

    /**
     * Like {@link #peek(long)}, seeing at most {@code stepNanos} beyond the last advance: in a task's first second,
     * whose ticks move the clock by one tick each, arrivals see no further than the next tick will take it.
     */
    public long peek(long wallNowMs, long stepNanos) {
        long seen = after(wallNowMs, stepNanos);
        seenNanos = Math.max(seenNanos, seen);
        return seen;
    }

    private long after(long wallNowMs, long stepNanos) {
        long elapsedNanos = Math.max(0, wallNowMs - wallAtLastAdvanceMs) * 1_000_000L;
        return virtualNanos + Math.min(elapsedNanos, Math.min(stepNanos, maxStepNanos));
    }

    /** Moves the clock to wall time {@code wallNowMs} (by at most one step) and returns the new virtual time. */
    public long advance(long wallNowMs) {
        return advance(wallNowMs, maxStepNanos);
    }

    /**
     * Like {@link #advance(long)}, moving by at most {@code stepNanos} (and at most one step), but never to a time
     * before one an arrival saw (the step may have shrunk since: a finer tick).
     */
    public long advance(long wallNowMs, long stepNanos) {
        virtualNanos = Math.max(after(wallNowMs, stepNanos), seenNanos);
        wallAtLastAdvanceMs = Math.max(wallAtLastAdvanceMs, wallNowMs);
        return virtualNanos;
    }

    /** The virtual time of the last {@link #advance}. */
    public long current() {
        return virtualNanos;
    }
}
