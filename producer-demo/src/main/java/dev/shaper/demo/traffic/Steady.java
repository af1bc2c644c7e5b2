package dev.shaper.demo.traffic;

/**
 * The same rate all the time.
 *
 * @param rate records per second, > 0
 */
public record Steady(double rate) implements TrafficPattern {

    @Override
    public double dueBy(double seconds) {
        return rate * seconds;
    }

    @Override
    public String describe() {
        return "steady " + Rates.format(rate) + "/s";
    }
}
