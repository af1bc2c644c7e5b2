package dev.shaper.internals.capacity.adaptive;

import dev.shaper.feedback.FeedbackReport;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays recorded feedback into a loop on a clock the test advances: each interval, the writers report one window
 * that ends with it, and the loop decides at its end. Two writers share the load; the second is a little slower, so
 * that the p99 the loop sees is the slower writer's.
 */
final class FeedbackScript {

    /** A pinned start: 2025-11-24T16:00:00Z. */
    static final long START_MS = 1_764_000_000_000L;

    private final AdaptiveCapacity loop;
    private final long adjustMs;
    private long nowMs;

    FeedbackScript(AdaptiveCapacity loop, long adjustMs) {
        this.loop = loop;
        this.adjustMs = adjustMs;
        this.nowMs = START_MS;
    }

    long nowMs() {
        return nowMs;
    }

    /**
     * One interval: both writers report a window of it, together {@code writes} written and {@code errors} failed,
     * the slower one with a p99 of {@code p99Ms}; then the decision at the interval's end.
     */
    CapacityDecision interval(long writes, long errors, double p99Ms) {
        nowMs += adjustMs;
        loop.onReport("writer-a", new FeedbackReport(nowMs - 10, adjustMs, writes / 2, errors / 2, p99Ms * 0.8),
                nowMs - 5);
        loop.onReport("writer-b", new FeedbackReport(nowMs - 5, adjustMs, writes - writes / 2, errors - errors / 2,
                p99Ms), nowMs - 1);
        return loop.decide(nowMs);
    }

    /** {@code n} intervals of the same feedback: the decisions in order. */
    List<CapacityDecision> intervals(int n, long writes, long errors, double p99Ms) {
        List<CapacityDecision> decisions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            decisions.add(interval(writes, errors, p99Ms));
        }
        return decisions;
    }

    /** One interval in which no writer reports; then the decision at its end. */
    CapacityDecision silentInterval() {
        nowMs += adjustMs;
        return loop.decide(nowMs);
    }
}
