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

    /** The virtual time at wall time {@code wallNowMs}, without moving the clock. */
    public long peek(long wallNowMs) {
        return peek(wallNowMs, maxStepNanos);
    }

    /**
     * Like {@link #peek(long)}, moving by at most {@code stepNanos}: the step the next {@link #advance(long, long)}
     * will take at most, so that an arrival never sees a time later than the release tick after it (virtual time
     * seen by arrivals only grows).
     */
    public long peek(long wallNowMs, long stepNanos) {
        long elapsedNanos = Math.max(0, wallNowMs - wallAtLastAdvanceMs) * 1_000_000L;
        return virtualNanos + Math.min(elapsedNanos, Math.min(stepNanos, maxStepNanos));
    }

    /** Moves the clock to wall time {@code wallNowMs} (by at most one step) and returns the new virtual time. */
    public long advance(long wallNowMs) {
        return advance(wallNowMs, maxStepNanos);
    }

    /** Like {@link #advance(long)}, moving by at most {@code stepNanos} (and at most one step). */
    public long advance(long wallNowMs, long stepNanos) {
        virtualNanos = peek(wallNowMs, stepNanos);
        wallAtLastAdvanceMs = Math.max(wallAtLastAdvanceMs, wallNowMs);
        return virtualNanos;
    }

    /** The virtual time of the last {@link #advance}. */
    public long current() {
        return virtualNanos;
    }
}
