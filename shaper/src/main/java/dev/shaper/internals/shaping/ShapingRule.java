package dev.shaper.internals.shaping;

/**
 * The leaky-bucket parameters that apply to one key.
 *
 * @param ratePerSecond units released per second (a record counts as its cost in units); may be fractional
 * @param maxQueue      the most records of one key that may wait at once
 * @param maxDelayMs    the longest a record may be scheduled to wait before its release
 * @param priority      when the total rate binds, keys of a lower number go first (0, the highest, to
 *                      {@link #LOWEST_PRIORITY})
 * @param weight        within a priority, waiting keys share the total rate in proportion to weight x rate (> 0)
 * @param shadow        true when the rule is in shadow ({@code mode: shadow} or {@code shaper.mode=shadow}): its
 *                      decisions are computed and reported, and its records pass at once
 */
public record ShapingRule(double ratePerSecond, int maxQueue, long maxDelayMs, int priority, double weight,
                          boolean shadow) {

    /** One unit of cost never spaces records closer than this, so dues of one key stay strictly increasing. */
    static final long MIN_INTERVAL_NANOS = 1;

    /** The lowest priority a rule may have (the highest number). */
    public static final int LOWEST_PRIORITY = 99;

    /** A rule of the highest priority and weight 1, as every rule was before priorities. */
    public ShapingRule(double ratePerSecond, int maxQueue, long maxDelayMs) {
        this(ratePerSecond, maxQueue, maxDelayMs, 0, 1.0);
    }

    /** An enforced rule. */
    public ShapingRule(double ratePerSecond, int maxQueue, long maxDelayMs, int priority, double weight) {
        this(ratePerSecond, maxQueue, maxDelayMs, priority, weight, false);
    }

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
        if (priority < 0 || priority > LOWEST_PRIORITY) {
            throw new IllegalArgumentException("priority must be 0.." + LOWEST_PRIORITY + ", got " + priority);
        }
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("weight must be a finite number > 0, got " + weight);
        }
    }

    /** The same rule with another priority and weight. */
    public ShapingRule withShare(int newPriority, double newWeight) {
        return new ShapingRule(ratePerSecond, maxQueue, maxDelayMs, newPriority, newWeight, shadow);
    }

    /** The same rule in shadow ({@code true}) or enforced. */
    public ShapingRule withShadow(boolean inShadow) {
        return inShadow == shadow ? this
                : new ShapingRule(ratePerSecond, maxQueue, maxDelayMs, priority, weight, inShadow);
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
