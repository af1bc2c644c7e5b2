package dev.shaper.demo.embedded;

import java.util.SortedMap;

/**
 * The demo's cumulative counters at one moment. Rates are differences between consecutive samples.
 *
 * @param elapsedMs        milliseconds since the demo's producer started
 * @param produced         records the broker acknowledged to the producer
 * @param shaped           records committed to the shaped topic
 * @param rejectedByReason records committed to the rejected topic, per {@code shaper.reason}
 * @param dbRows           rows the database committed
 * @param capacity         the capacity the shaper's closed loop applied, units/s, or NaN when the capacity is fixed
 */
public record Sample(long elapsedMs, long produced, long shaped, SortedMap<String, Long> rejectedByReason,
                     long dbRows, double capacity) {

    /** A sample of a run whose capacity is fixed. */
    public Sample(long elapsedMs, long produced, long shaped, SortedMap<String, Long> rejectedByReason, long dbRows) {
        this(elapsedMs, produced, shaped, rejectedByReason, dbRows, Double.NaN);
    }

    /** Whether the sample holds the closed loop's capacity. */
    public boolean hasCapacity() {
        return !Double.isNaN(capacity);
    }

    public long rejected() {
        return rejectedByReason.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Records produced but neither shaped nor rejected yet: waiting in the shaper (or in transit). */
    public long queueDepth() {
        return produced - shaped - rejected();
    }
}
