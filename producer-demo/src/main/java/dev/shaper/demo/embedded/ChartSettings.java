package dev.shaper.demo.embedded;

/**
 * What the demo was set to, as far as its chart draws it: the limits the shaper holds the releases to, the bounds the
 * documentation states for them, and the largest values the settings allow, which fix the axes. Axes taken from the
 * settings rather than from the data keep their scale from one run of the same command to the next.
 *
 * @param ratePerKey          the shaper's release rate per key, records/s
 * @param keys                how many keys the producer uses
 * @param dbCapacity          the database's capacity, the shaper's total rate, units/s (a record costs one); 0 for
 *                            none; with the closed loop its maximum
 * @param capacitySecondLimit what one second of releases of all keys may hold under {@code dbCapacity}: the
 *                            capacity +5 %, one late release and one unit per task (docs/capacity.md); unused
 *                            without a capacity
 * @param adaptive            whether the closed loop moves the capacity below {@code dbCapacity}
 * @param maxDelaySeconds     the longest a record may wait in the shaper
 * @param peakInput           the most records the producer sends in one second: the background rate and a burst
 * @param slowdown            when the database was slowed down, or null if it was not
 */
record ChartSettings(double ratePerKey, int keys, double dbCapacity, long capacitySecondLimit, boolean adaptive,
                     double maxDelaySeconds, double peakInput, Slowdown slowdown) {

    /**
     * The database's injected slowdown, in seconds since the producer started.
     *
     * @param fromSeconds when it began
     * @param toSeconds   when it ended
     * @param label       what it was, for the legend
     */
    record Slowdown(double fromSeconds, double toSeconds, String label) {
    }

    /** Headroom above a bound, so that a line at the bound is not drawn on the panel's upper edge. */
    private static final double HEADROOM = 1.1;

    /** What all keys may release at their own rates together, records/s. */
    double keysRate() {
        return ratePerKey * keys;
    }

    /**
     * The documented bound of the keys' releases in any one second: at most rate + 1 records of each key (the rate
     * rounded down: a key at 20.5/s may hold 21 records in a second).
     */
    long keysSecondLimit() {
        return ((long) Math.floor(ratePerKey) + 1) * keys;
    }

    boolean hasCapacity() {
        return dbCapacity > 0;
    }

    /**
     * Whether the keys' own rates hold the releases back, rather than the capacity: without a capacity, or with one
     * at or above what the keys may release together. Only the binding limit and its bound are drawn.
     */
    boolean keysBind() {
        return !hasCapacity() || keysRate() <= dbCapacity;
    }

    /**
     * The largest line drawn in the releases' panel, which its axis is made for: the binding limit's bound, or the
     * capacity where that lies above (a capacity the keys never reach).
     */
    double releasesBound() {
        return Math.max(keysBind() ? keysSecondLimit() : capacitySecondLimit, dbCapacity);
    }

    /** The releases' axis: the bounds drawn with some headroom, or the data where it went above. */
    NiceScale releasesScale(double dataMax) {
        return NiceScale.steady(HEADROOM * releasesBound(), dataMax);
    }

    /** The input's axis: a burst on top of the background rate. */
    NiceScale inputScale(double dataMax) {
        return NiceScale.steady(HEADROOM * peakInput, dataMax);
    }

    /**
     * The queue's axis: a burst, which arrives at once and counts as waiting until the shaper has read it, or what
     * the releases take away within the longest wait (the most that can wait without being rejected), whichever is
     * more.
     */
    NiceScale queueScale(double dataMax) {
        double limit = keysBind() ? keysRate() : dbCapacity;
        return NiceScale.steady(HEADROOM * Math.max(peakInput, limit * maxDelaySeconds), dataMax);
    }

    /** The rejections' axis: at worst a whole second of input is refused. */
    NiceScale rejectionsScale(double dataMax) {
        return NiceScale.steady(HEADROOM * peakInput, dataMax);
    }
}
