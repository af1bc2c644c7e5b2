package dev.shaper.demo.traffic;

/**
 * A steady rate for {@code onSeconds}, then silence for {@code offSeconds}, repeated: a batch job that wakes
 * up periodically.
 *
 * @param rate       records per second while on, > 0
 * @param onSeconds  length of each active phase, > 0
 * @param offSeconds length of each silent phase, >= 0
 */
public record OnOff(double rate, double onSeconds, double offSeconds) implements TrafficPattern {

    @Override
    public double dueBy(double seconds) {
        double cycle = onSeconds + offSeconds;
        double cycles = Math.floor(seconds / cycle);
        double intoCycle = seconds - cycles * cycle;
        return rate * (cycles * onSeconds + Math.min(intoCycle, onSeconds));
    }

    @Override
    public String describe() {
        return "on/off " + Rates.format(rate) + "/s for " + Rates.format(onSeconds) + " s, silent for "
                + Rates.format(offSeconds) + " s";
    }
}
