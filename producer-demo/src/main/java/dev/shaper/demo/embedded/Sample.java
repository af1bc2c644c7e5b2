package dev.shaper.demo.embedded;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The demo's cumulative counters at one moment. Rates are differences between consecutive samples.
 *
 * @param elapsedMs           milliseconds since the demo's producer started
 * @param produced            records the broker acknowledged to the producer
 * @param shaped              records committed to the shaped topic
 * @param rejectedByReason    records committed to the rejected topic, per {@code shaper.reason}
 * @param rejectedWhileQueued of those, the ones rejected after they had waited in a queue, per reason (a reason
 *                            without any is absent); the others were refused at arrival
 * @param dbRows              rows the database committed
 * @param capacity            the capacity the shaper's closed loop applied, units/s, or NaN when the capacity is fixed
 */
public record Sample(long elapsedMs, long produced, long shaped, SortedMap<String, Long> rejectedByReason,
                     SortedMap<String, Long> rejectedWhileQueued, long dbRows, double capacity) {

    /** A sample of a run whose capacity is fixed, every rejection at arrival. */
    public Sample(long elapsedMs, long produced, long shaped, SortedMap<String, Long> rejectedByReason, long dbRows) {
        this(elapsedMs, produced, shaped, rejectedByReason, dbRows, Double.NaN);
    }

    /** A sample whose rejections were all at arrival. */
    public Sample(long elapsedMs, long produced, long shaped, SortedMap<String, Long> rejectedByReason, long dbRows,
                  double capacity) {
        this(elapsedMs, produced, shaped, rejectedByReason, new TreeMap<>(), dbRows, capacity);
    }

    /** Whether the sample holds the closed loop's capacity. */
    public boolean hasCapacity() {
        return !Double.isNaN(capacity);
    }

    public long rejected() {
        return rejectedByReason.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Records of {@code reason} refused when they arrived: all of the reason's but those rejected while queued. */
    public long rejectedAtArrival(String reason) {
        return rejectedByReason.getOrDefault(reason, 0L) - rejectedWhileQueued.getOrDefault(reason, 0L);
    }

    /** Records produced but neither shaped nor rejected yet: waiting in the shaper (or in transit). */
    public long queueDepth() {
        return produced - shaped - rejected();
    }
}
