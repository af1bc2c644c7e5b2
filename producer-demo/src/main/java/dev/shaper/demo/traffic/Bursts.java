package dev.shaper.demo.traffic;

/**
 * A background rate plus, at the start of every period, a burst of {@code burstSize} records sent within
 * {@code burstSeconds} (0: back to back). This is the traffic the shaper exists for.
 *
 * @param baseRate      records per second between bursts, >= 0
 * @param burstSize     records per burst, >= 1
 * @param periodSeconds time from one burst's start to the next, > 0
 * @param burstSeconds  how long one burst takes, 0 (as fast as possible) up to the period
 */
public record Bursts(double baseRate, int burstSize, double periodSeconds, double burstSeconds)
        implements TrafficPattern {

    @Override
    public double dueBy(double seconds) {
        double periods = Math.floor(seconds / periodSeconds);
        double intoPeriod = seconds - periods * periodSeconds;
        double ofThisBurst = burstSeconds <= 0 ? 1 : Math.min(1, intoPeriod / burstSeconds);
        return baseRate * seconds + burstSize * (periods + ofThisBurst);
    }

    @Override
    public String describe() {
        return "bursts of " + burstSize + " every " + Rates.format(periodSeconds) + " s"
                + (burstSeconds > 0 ? " (each over " + Rates.format(burstSeconds) + " s)" : "")
                + (baseRate > 0 ? " on top of " + Rates.format(baseRate) + "/s" : "");
    }
}
