package dev.shaper.internals.shaping;

import java.util.Arrays;

/**
 * How late a task's release ticks routinely come: the median, over the last {@link #PERIODS} periods of
 * {@link #PERIOD_MS} that had a tick, of each period's latest tick. Lateness the stream thread shows routinely (an exactly-once
 * commit every 100 ms, a busy machine) is made up at once, since making it up slowly would lose the rate for good;
 * a stall beyond it (one GC pause, one slow commit) moves the median not at all and is made up at
 * one record a second above the rate ({@link ReleasePace#catchUpIntervalNanos}), without a burst.
 */
public final class StallMeter {

    /** The length of one period, about one commit interval under exactly-once. */
    public static final long PERIOD_MS = 100;
    /** How many periods the median looks back over: two seconds of ticks. */
    public static final int PERIODS = 20;
    /**
     * How long after its start a task's ticks tell nothing about what is routine: a restore, the intake of a burst
     * that waited for the start, the JIT's first compilations. Their lateness is made up at the catch-up speed.
     */
    public static final long START_UP_MS = 1_000;

    private final long maxNanos;
    private final long learnFromWallMs;
    private final long[] latestByPeriod = new long[PERIODS];
    private final long[] sorted = new long[PERIODS];
    private int next;
    /** How many periods {@link #latestByPeriod} holds: fewer than {@link #PERIODS} in a task's first 2 s. */
    private int filled;
    private long period = Long.MIN_VALUE;
    private long latestInPeriod;
    private long median;

    /**
     * @param maxNanos    the most lateness ever made up at once ({@code shaper.shaping.catchup.max.ms})
     * @param startWallMs when the task started: ticks of its first {@link #START_UP_MS} are not counted
     */
    public StallMeter(long maxNanos, long startWallMs) {
        this.maxNanos = maxNanos;
        this.learnFromWallMs = startWallMs + START_UP_MS;
    }

    /** A tick came {@code lateNanos} after its time (0 or less: on time) at wall time {@code wallNowMs}. */
    public void tick(long lateNanos, long wallNowMs) {
        if (wallNowMs < learnFromWallMs) {
            return;
        }
        long now = Math.floorDiv(wallNowMs, PERIOD_MS);
        if (period == Long.MIN_VALUE) {
            period = now;
        }
        if (now > period) {
            close(latestInPeriod); // a period without a tick tells nothing (a stall, or ticks longer than a period)
            period = now;
            latestInPeriod = 0;
        }
        latestInPeriod = Math.max(latestInPeriod, Math.min(maxNanos, lateNanos));
    }

    private void close(long latest) {
        latestByPeriod[next] = latest;
        next = (next + 1) % PERIODS;
        filled = Math.min(PERIODS, filled + 1);
        // Over the periods seen so far: a task that starts on a busy thread learns so within a few periods.
        System.arraycopy(latestByPeriod, 0, sorted, 0, PERIODS);
        Arrays.sort(sorted, 0, filled);
        median = sorted[filled / 2];
    }

    /** The lateness to make up at once now. */
    public long routineLateNanos() {
        return median;
    }
}
