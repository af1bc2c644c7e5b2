package dev.shaper.testsupport;

import java.util.Arrays;

/** Arithmetic on the arrival times of one key's records: the rate they came at and their densest second. */
public final class ArrivalStats {

    private ArrivalStats() {
    }

    /**
     * The arrival rate as the inverse slope of a least-squares line through (index, arrival time): with
     * {@code t(i) = a + b i}, the rate is {@code 1 / b} records per second. Unlike count / duration, this
     * uses every arrival, so a few records that came early or late barely move it.
     *
     * @param arrivalNanos arrival times in arrival order, in nanoseconds of any fixed origin
     * @return records per second; NaN for fewer than two arrivals, infinity if they all came at once
     */
    public static double fittedRatePerSecond(long[] arrivalNanos) {
        int n = arrivalNanos.length;
        if (n < 2) {
            return Double.NaN;
        }
        long origin = arrivalNanos[0];
        double meanIndex = (n - 1) / 2.0;
        double meanTime = 0;
        for (long t : arrivalNanos) {
            meanTime += (t - origin) / 1e9;
        }
        meanTime /= n;
        double covariance = 0;
        double varianceOfIndex = 0;
        for (int i = 0; i < n; i++) {
            double di = i - meanIndex;
            covariance += di * ((arrivalNanos[i] - origin) / 1e9 - meanTime);
            varianceOfIndex += di * di;
        }
        double secondsPerRecord = covariance / varianceOfIndex;
        return secondsPerRecord > 0 ? 1 / secondsPerRecord : Double.POSITIVE_INFINITY;
    }

    /**
     * How long the releases stood still beyond their normal pace: the sum, over consecutive stamps (sorted), of
     * what each gap exceeds {@code normalGapNanos} by. A stream thread that did not run (a long commit, a GC pause, a
     * starved CPU) shows as such gaps in the shaper's own release stamps.
     */
    public static long stalledNanos(long[] stampsNanos, long normalGapNanos) {
        long[] sorted = stampsNanos.clone();
        Arrays.sort(sorted);
        long stalled = 0;
        for (int i = 1; i < sorted.length; i++) {
            stalled += Math.max(0, sorted[i] - sorted[i - 1] - normalGapNanos);
        }
        return stalled;
    }

    /**
     * The rate of a key's releases while it was not stalled: records per second over the span of the stamps less
     * {@link #stalledNanos} with a normal gap of two of the key's intervals (a release tick is at most half an
     * interval). A shaper that paces a key below its rate while it runs shows here; one whose stream thread was kept
     * from running does not. NaN for fewer than two stamps.
     */
    public static double runningRate(long[] stampsNanos, double ratePerSecond) {
        if (stampsNanos.length < 2) {
            return Double.NaN;
        }
        long[] sorted = stampsNanos.clone();
        Arrays.sort(sorted);
        long span = sorted[sorted.length - 1] - sorted[0];
        long running = span - stalledNanos(sorted, (long) (2e9 / ratePerSecond));
        return running > 0 ? (sorted.length - 1) / (running / 1e9) : Double.POSITIVE_INFINITY;
    }

    /**
     * The most arrivals in any window {@code [t, t + windowNanos)}: the window may start anywhere, so this is
     * the densest stretch of that length, not a count per fixed bucket. Arrivals at the same instant (one
     * consumer poll) all count.
     */
    public static int maxInWindow(long[] arrivalNanos, long windowNanos) {
        long[] sorted = arrivalNanos.clone();
        Arrays.sort(sorted);
        int max = 0;
        int end = 0;
        for (int start = 0; start < sorted.length; start++) {
            while (end < sorted.length && sorted[end] - sorted[start] < windowNanos) {
                end++;
            }
            max = Math.max(max, end - start);
        }
        return max;
    }
}
