package dev.shaper.internals.metrics;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Events per second over the last {@link #WINDOW_SECONDS} completed seconds, for a gauge. Events are
 * counted in one-second buckets by the time the caller already knows (the stream thread's wall time), so
 * counting costs no clock read; the current, incomplete second is left out so the gauge does not dip at
 * every second's start.
 */
final class SlidingRate {

    static final int WINDOW_SECONDS = 10;
    /** One bucket more than the window: the current second's bucket is filling while the window is read. */
    private static final int BUCKETS = WINDOW_SECONDS + 1;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    /** The second each bucket counts; a bucket of an older second is stale and is reset before reuse. */
    private final AtomicLongArray seconds = new AtomicLongArray(BUCKETS);
    private final LongSupplier wallClockMs;

    SlidingRate(LongSupplier wallClockMs) {
        this.wallClockMs = wallClockMs;
        for (int i = 0; i < BUCKETS; i++) {
            seconds.set(i, Long.MIN_VALUE);
        }
    }

    /** Counts {@code n} events that happened at wall time {@code atMs}. */
    void add(long atMs, long n) {
        long second = Math.floorDiv(atMs, 1000);
        int i = (int) Math.floorMod(second, BUCKETS);
        long owner = seconds.get(i);
        if (owner != second) {
            if (owner > second) {
                return; // older than the window: a late caller, not worth a bucket
            }
            // Whoever wins the swap resets the count. An add racing with that reset may be lost: the gauge is
            // an approximate view, and a lock on the stream threads' path would cost more than it is worth.
            if (seconds.compareAndSet(i, owner, second)) {
                counts.set(i, 0);
            }
        }
        counts.addAndGet(i, n);
    }

    /** Events per second over the last {@link #WINDOW_SECONDS} complete seconds. */
    double perSecond() {
        long current = Math.floorDiv(wallClockMs.getAsLong(), 1000);
        long sum = 0;
        for (int i = 0; i < BUCKETS; i++) {
            long second = seconds.get(i);
            if (second < current && second >= current - WINDOW_SECONDS) {
                sum += counts.get(i);
            }
        }
        return (double) sum / WINDOW_SECONDS;
    }
}
