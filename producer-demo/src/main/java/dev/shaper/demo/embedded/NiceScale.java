package dev.shaper.demo.embedded;

import java.util.ArrayList;
import java.util.List;

/**
 * An axis from 0 whose ticks fall on round numbers: the step is 1, 2 or 5 times a power of ten (on a time axis of
 * many seconds also 10, 20, 30 or 60), and the axis ends on a tick. A reader then reads a value off the grid
 * without working out where 13 or 26 falls.
 *
 * @param max  the axis' largest value, a multiple of {@code step}
 * @param step the distance between two ticks
 */
record NiceScale(double max, double step) {

    /** At most this many intervals between ticks: enough to read a value, few enough to label at 12 px. */
    static final int MAX_INTERVALS = 6;

    /**
     * The shortest axis with at most {@link #MAX_INTERVALS} intervals of a round step that reaches {@code value}.
     *
     * @param value the largest value the axis must show; 0 or less gives an axis to 1
     */
    static NiceScale covering(double value) {
        return covering(value, MAX_INTERVALS);
    }

    /** {@link #covering(double)} with at most {@code maxIntervals} intervals. */
    static NiceScale covering(double value, int maxIntervals) {
        double reach = value > 0 && Double.isFinite(value) ? value : 1;
        double magnitude = Math.pow(10, Math.floor(Math.log10(reach / maxIntervals)));
        for (double multiple : new double[] {1, 2, 5, 10, 20, 50}) {
            double step = multiple * magnitude;
            // A tiny tolerance: 0.1 * 3 must reach 0.3
            long intervals = (long) Math.ceil(reach / step - 1e-9);
            if (intervals <= maxIntervals) {
                return new NiceScale(Math.max(1, intervals) * step, step);
            }
        }
        throw new AssertionError("a step of 50 times the magnitude always fits: " + value);
    }

    /**
     * The scale of {@code configured}, the largest value the settings allow, unless the data went above it: then
     * the next round scale that holds the data. Axes so derived do not change between runs of the same settings,
     * and never hide a value.
     */
    static NiceScale steady(double configured, double dataMax) {
        NiceScale scale = covering(configured);
        return dataMax > scale.max() ? covering(dataMax) : scale;
    }

    /** The values of the ticks, from 0 to {@link #max()} included. */
    List<Double> ticks() {
        List<Double> ticks = new ArrayList<>();
        long intervals = Math.round(max / step);
        for (long i = 0; i <= intervals; i++) {
            // i * step rather than adding steps up: no drift to 0.30000000000000004
            ticks.add(i * step);
        }
        return ticks;
    }

    /**
     * A time axis of {@code seconds}: a step of 1, 2 or 5 s, or 10, 20, 30 s or a minute and its multiples, with
     * at most {@code maxIntervals} intervals.
     */
    static NiceScale seconds(double seconds, int maxIntervals) {
        double reach = seconds > 0 && Double.isFinite(seconds) ? seconds : 1;
        for (double step : new double[] {1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600}) {
            long intervals = (long) Math.ceil(reach / step - 1e-9);
            if (intervals <= maxIntervals) {
                return new NiceScale(Math.max(1, intervals) * step, step);
            }
        }
        return covering(reach, maxIntervals);
    }
}
