package dev.shaper.demo.traffic;

/**
 * A rate that grows (or shrinks) linearly from {@code fromRate} to {@code toRate} over {@code rampSeconds},
 * then stays at {@code toRate}: finds the rate at which the shaper starts to queue and reject.
 *
 * @param fromRate    records per second at the start, >= 0
 * @param toRate      records per second at the end of the ramp, >= 0
 * @param rampSeconds how long the ramp takes, > 0
 */
public record Ramp(double fromRate, double toRate, double rampSeconds) implements TrafficPattern {

    @Override
    public double dueBy(double seconds) {
        double t = Math.min(seconds, rampSeconds);
        // The integral of the linear rate over [0, t], then the flat rate after the ramp.
        double onRamp = fromRate * t + (toRate - fromRate) * t * t / (2 * rampSeconds);
        return onRamp + toRate * Math.max(0, seconds - rampSeconds);
    }

    @Override
    public String describe() {
        return "ramp " + Rates.format(fromRate) + "/s -> " + Rates.format(toRate) + "/s over "
                + Rates.format(rampSeconds) + " s";
    }
}
