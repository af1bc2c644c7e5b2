package dev.shaper.demo.embedded;

import dev.shaper.demo.traffic.Rates;
import java.util.List;
import java.util.Locale;

/**
 * How the closed loop's capacity went over a demo run: its lowest, when it first fell, and how long it took to come
 * back after the database's slowdown ended. "Fallen" and "back" both mean more than {@link #TOLERANCE} below the
 * maximum, so that one step of the controller's noise neither counts as a fall nor keeps a recovery from counting.
 *
 * @param max               the maximum, the shaper's total rate, units/s
 * @param lowest            the lowest capacity sampled, units/s
 * @param lowestAtSeconds   when it was sampled, seconds since the producer started
 * @param firstFellAtSeconds when the capacity was first sampled more than 5 % below the maximum, or NaN if never
 * @param fromSeconds       what the recovery is timed from: the slowdown's end, or without a slowdown the lowest point
 * @param recoveredAtSeconds the first sample at or after {@code fromSeconds} back within 5 % of the maximum, or NaN
 *                          if none was
 */
record CapacityCourse(double max, double lowest, double lowestAtSeconds, double firstFellAtSeconds,
                      double fromSeconds, double recoveredAtSeconds) {

    /** How far below the maximum the capacity may be and still count as at the maximum. */
    static final double TOLERANCE = 0.05;

    /**
     * @param samples            the run's samples; those without a capacity are skipped
     * @param max                the maximum capacity, units/s
     * @param slowdownEndSeconds when the database's slowdown ended, seconds since the producer started, or NaN for
     *                           a run without one
     * @return the course, or null when no sample holds a capacity
     */
    static CapacityCourse of(List<Sample> samples, double max, double slowdownEndSeconds) {
        List<Sample> withCapacity = samples.stream().filter(Sample::hasCapacity).toList();
        if (withCapacity.isEmpty()) {
            return null;
        }
        double floor = max * (1 - TOLERANCE);
        Sample lowest = withCapacity.get(0);
        double firstFell = Double.NaN;
        for (Sample s : withCapacity) {
            if (s.capacity() < lowest.capacity()) {
                lowest = s;
            }
            if (Double.isNaN(firstFell) && s.capacity() < floor) {
                firstFell = seconds(s);
            }
        }
        double from = Double.isNaN(slowdownEndSeconds) ? seconds(lowest) : slowdownEndSeconds;
        double recovered = Double.NaN;
        for (Sample s : withCapacity) {
            if (seconds(s) >= from && s.capacity() >= floor) {
                recovered = seconds(s);
                break;
            }
        }
        return new CapacityCourse(max, lowest.capacity(), seconds(lowest), firstFell, from, recovered);
    }

    boolean fell() {
        return !Double.isNaN(firstFellAtSeconds);
    }

    boolean recovered() {
        return !Double.isNaN(recoveredAtSeconds);
    }

    /** Seconds from {@link #fromSeconds()} until the capacity was back within 5 % of the maximum; NaN if it was not. */
    double recoverySeconds() {
        return recovered() ? Math.max(0, recoveredAtSeconds - fromSeconds) : Double.NaN;
    }

    /** The summary's rows: the lowest capacity and when, when it first fell, and the time to recover. */
    String lowestRow() {
        return String.format(Locale.ROOT, "%s/s (%.0f %% of the maximum %s/s) at %s s", Rates.format(round(lowest)),
                100 * lowest / max, Rates.format(max), Rates.format(round(lowestAtSeconds)));
    }

    String firstFellRow() {
        return fell() ? "at " + Rates.format(round(firstFellAtSeconds)) + " s (first more than 5 % below the maximum)"
                : "never (always within 5 % of the maximum)";
    }

    String recoveryRow(boolean afterSlowdown) {
        if (!fell()) {
            return "nothing to recover from";
        }
        String from = (afterSlowdown ? "after the slowdown ended" : "after its lowest") + " (at "
                + Rates.format(round(fromSeconds)) + " s)";
        return recovered() ? Rates.format(round(recoverySeconds())) + " s " + from + ", back within 5 % of the"
                + " maximum at " + Rates.format(round(recoveredAtSeconds)) + " s" : "not recovered by the end (" + from
                + ")";
    }

    private static double seconds(Sample s) {
        return Math.round(s.elapsedMs() / 100.0) / 10.0;
    }

    /** To one decimal: the samples are a second apart, a rate of a few dozen per second. */
    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }
}
