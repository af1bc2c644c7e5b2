package dev.shaper.internals.shaping;

/**
 * The leaky-bucket parameters that apply to one key.
 *
 * @param ratePerSecond units released per second (a record counts as its cost in units); may be fractional
 * @param maxQueue      the most records of one key that may wait at once
 * @param maxDelayMs    the longest a record may be scheduled to wait before its release
 */
public record ShapingRule(double ratePerSecond, int maxQueue, long maxDelayMs) {

    /** One unit of cost never spaces records closer than this, so dues of one key stay strictly increasing. */
    static final long MIN_INTERVAL_NANOS = 1;

    public ShapingRule {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("rate must be a finite number > 0, got " + ratePerSecond);
        }
        if (maxQueue < 0) {
            throw new IllegalArgumentException("maxQueue must be >= 0, got " + maxQueue);
        }
        if (maxDelayMs < 0) {
            throw new IllegalArgumentException("maxDelayMs must be >= 0, got " + maxDelayMs);
        }
    }

    /**
     * The spacing, in nanoseconds, that {@code cost} units need at this rate; saturates instead of overflowing.
     * Rounded to the nearest nanosecond: rounding up would make 3/s drift past whole-second ticks.
     */
    public long intervalNanos(long cost) {
        return intervalNanos(cost, ratePerSecond);
    }

    static long intervalNanos(long cost, double ratePerSecond) {
        double nanos = cost * 1e9 / ratePerSecond;
        if (nanos >= Long.MAX_VALUE / 4.0) {
            return Long.MAX_VALUE / 4;
        }
        return Math.max(MIN_INTERVAL_NANOS, Math.round(nanos));
    }
}
