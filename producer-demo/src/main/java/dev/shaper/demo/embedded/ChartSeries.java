package dev.shaper.demo.embedded;

import java.util.ArrayList;
import java.util.List;

/**
 * The data of one demo run as its chart draws it.
 *
 * @param rates             the rates between the samples, about one a second: input, database rows, the closed
 *                          loop's capacity
 * @param releasedPerSecond the shaped records by their release time, element {@code i} those released from {@code i}
 *                          s to {@code i + 1} s after the producer started: the clock the shaper's bounds are stated on
 * @param backlog           the queue and the rejections at each sample
 */
record ChartSeries(List<RateTimeline.Rates> rates, long[] releasedPerSecond, List<RateTimeline.Backlog> backlog) {

    /** A value at a moment, seconds since the producer started. */
    record Point(double atSeconds, double value) {
    }

    /** The releases per second, each at the end of its second, as the sampled rates are at the end of theirs. */
    List<Point> released() {
        List<Point> points = new ArrayList<>(releasedPerSecond.length);
        for (int i = 0; i < releasedPerSecond.length; i++) {
            points.add(new Point(i + 1, releasedPerSecond[i]));
        }
        return points;
    }

    /** The most released in one second, 0 for none. */
    long releasedPeak() {
        long peak = 0;
        for (long count : releasedPerSecond) {
            peak = Math.max(peak, count);
        }
        return peak;
    }

    /** The time the data reaches, seconds since the producer started. */
    double endSeconds() {
        double end = releasedPerSecond.length;
        for (RateTimeline.Rates r : rates) {
            end = Math.max(end, r.atSeconds());
        }
        for (RateTimeline.Backlog b : backlog) {
            end = Math.max(end, b.atSeconds());
        }
        return end;
    }
}
