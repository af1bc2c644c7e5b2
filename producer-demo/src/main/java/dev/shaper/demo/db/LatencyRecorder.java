package dev.shaper.demo.db;

import java.util.Arrays;

/**
 * Keeps latency samples (microseconds) and answers percentiles. Stores every sample: the writer records one
 * per batch, a few per second, so even a long run stays small. Thread-safe.
 */
public final class LatencyRecorder {

    private long[] samples = new long[1024];
    private int count;

    public synchronized void record(long micros) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, count * 2);
        }
        samples[count++] = micros;
    }

    public synchronized int count() {
        return count;
    }

    /**
     * The {@code percentile} (0 to 100) of the samples so far by the nearest-rank method, or 0 without
     * samples.
     */
    public long percentile(double percentile) {
        long[] sorted;
        synchronized (this) {
            sorted = Arrays.copyOf(samples, count);
        }
        if (sorted.length == 0) {
            return 0;
        }
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
