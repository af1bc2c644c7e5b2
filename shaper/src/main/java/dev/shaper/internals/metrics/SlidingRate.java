package dev.shaper.internals.metrics;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * Events per second over the last {@link #WINDOW_SECONDS} completed seconds, for a gauge. Events are
 * counted in one-second buckets by the time the caller already knows (the stream thread's wall time), so
 * counting costs no clock read; the current, incomplete second is left out so the gauge does not dip at
 * every second's start.
 *
 * <p>Callers add counts in batches (a task's output of a second or a tick, see {@link TaskCounts}), not per
 * event, so a lock is cheap here and keeps a bucket's reuse for a new second from losing a concurrent add.
 */
final class SlidingRate {

    static final int WINDOW_SECONDS = 10;
    /** One bucket more than the window: the current second's bucket is filling while the window is read. */
    private static final int BUCKETS = WINDOW_SECONDS + 1;

    private final long[] counts = new long[BUCKETS];
    /** The second each bucket counts; a bucket of an older second is stale and is reset before reuse. */
    private final long[] seconds = new long[BUCKETS];
    private final LongSupplier wallClockMs;

    SlidingRate(LongSupplier wallClockMs) {
        this.wallClockMs = wallClockMs;
        Arrays.fill(seconds, Long.MIN_VALUE);
    }

    /** Counts {@code n} events that happened at wall time {@code atMs}. */
    synchronized void add(long atMs, long n) {
        long second = Math.floorDiv(atMs, 1000);
        int i = (int) Math.floorMod(second, BUCKETS);
        if (seconds[i] != second) {
            if (seconds[i] > second) {
                return; // older than the window: a late caller, not worth a bucket
            }
            seconds[i] = second;
            counts[i] = 0;
        }
        counts[i] += n;
    }

    /** Events per second over the last {@link #WINDOW_SECONDS} complete seconds. */
    synchronized double perSecond() {
        long current = Math.floorDiv(wallClockMs.getAsLong(), 1000);
        long sum = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (seconds[i] < current && seconds[i] >= current - WINDOW_SECONDS) {
                sum += counts[i];
            }
        }
        return (double) sum / WINDOW_SECONDS;
    }
}
