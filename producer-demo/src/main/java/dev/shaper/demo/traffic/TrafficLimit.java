package dev.shaper.demo.traffic;

import java.time.Duration;

/**
 * When a generator stops: after {@code duration}, after {@code count} records, or at whichever comes first
 * when both are set. At least one is set.
 *
 * @param duration how long to generate, or null for no time limit
 * @param count    how many records to generate, or 0 for no count limit
 */
public record TrafficLimit(Duration duration, long count) {

    public TrafficLimit {
        if (duration == null && count <= 0) {
            throw new IllegalArgumentException("a traffic limit needs a duration or a count");
        }
    }

    public static TrafficLimit of(Duration duration) {
        return new TrafficLimit(duration, 0);
    }

    public static TrafficLimit ofCount(long count) {
        return new TrafficLimit(null, count);
    }

    boolean reachedCount(long sent) {
        return count > 0 && sent >= count;
    }

    boolean reachedTime(long elapsedNanos) {
        return duration != null && elapsedNanos >= duration.toNanos();
    }

    @Override
    public String toString() {
        String time = duration == null ? null : Rates.format(duration.toMillis() / 1000.0) + " s";
        String records = count > 0 ? count + " records" : null;
        return time == null ? records : records == null ? time : time + " or " + records;
    }
}
