package dev.shaper.internals.capacity.adaptive;

/**
 * The range the capacity moves in: from {@code shaper.capacity.min.rate} to {@code shaper.shaping.total.rate}.
 *
 * @param min the lowest capacity, units per second (more than 0)
 * @param max the highest capacity, units per second (at least min)
 */
public record CapacityBounds(double min, double max) {

    /** Bounds with 0 &lt; min &lt;= max, both finite. */
    public CapacityBounds {
        if (!(min > 0) || !(max >= min) || Double.isInfinite(max)) {
            throw new IllegalArgumentException("capacity bounds need 0 < min <= max, finite, got [" + min + ", " + max
                    + "]");
        }
    }

    /** {@code capacity}, moved into the bounds. */
    public double clamp(double capacity) {
        return Math.max(min, Math.min(max, capacity));
    }
}
