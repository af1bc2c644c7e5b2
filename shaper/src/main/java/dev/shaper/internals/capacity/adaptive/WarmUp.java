package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;

/**
 * The warm-up after a start that restored queued records: a ceiling on the capacity that rises in a straight line
 * from the minimum to the maximum over {@code shaper.capacity.warmup.ms}, so that a backlog reaches a database with
 * cold caches at the minimum first, not at full speed (as Sentinel's and Guava's warm-ups do for requests).
 *
 * <p>It composes with either controller: the capacity is what the controller allows or the ceiling, whichever is
 * lower, so a cut applies at once while a rise waits for the ceiling. The ceiling rises by the clock alone, with or
 * without feedback: it is a schedule, and a restart with no writer reporting yet would otherwise stay at the minimum.
 */
public final class WarmUp {

    private final CapacityBounds bounds;
    private final long startMs;
    private final long durationMs;

    /**
     * @param startMs    when the start that restored records happened
     * @param durationMs how long the ceiling takes from the minimum to the maximum (0: no warm-up)
     */
    public WarmUp(CapacityBounds bounds, long startMs, long durationMs) {
        if (durationMs < 0) {
            throw new IllegalArgumentException("a warm-up lasts 0 ms or more, got " + durationMs);
        }
        this.bounds = bounds;
        this.startMs = startMs;
        this.durationMs = durationMs;
    }

    /** No warm-up: the ceiling is the maximum from the start. */
    public static WarmUp none(CapacityBounds bounds) {
        return new WarmUp(bounds, 0, 0);
    }

    /** When the warm-up started, epoch milliseconds; 0 for none. */
    public long startMs() {
        return startMs;
    }

    /** The highest capacity the warm-up allows at {@code nowMs}. */
    public double ceiling(long nowMs) {
        long elapsedMs = Math.max(0, nowMs - startMs);
        if (elapsedMs >= durationMs) {
            return bounds.max();
        }
        return bounds.min() + (bounds.max() - bounds.min()) * elapsedMs / durationMs;
    }

    /** Whether the ceiling has reached the maximum at {@code nowMs}. */
    public boolean isOver(long nowMs) {
        return nowMs - startMs >= durationMs;
    }

    /** {@code allowed}, or the ceiling (reason {@link Reason#WARMING_UP}) where the ceiling is lower. */
    public CapacityDecision limit(CapacityDecision allowed, long nowMs) {
        double ceiling = ceiling(nowMs);
        return allowed.capacity() > ceiling ? allowed.limitedTo(ceiling, Reason.WARMING_UP) : allowed;
    }
}
