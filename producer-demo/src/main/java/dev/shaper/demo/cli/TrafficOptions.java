package dev.shaper.demo.cli;

import dev.shaper.demo.traffic.Bursts;
import dev.shaper.demo.traffic.OnOff;
import dev.shaper.demo.traffic.Ramp;
import dev.shaper.demo.traffic.Steady;
import dev.shaper.demo.traffic.TrafficLimit;
import dev.shaper.demo.traffic.TrafficPattern;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code produce} options that describe the traffic: its pattern and that pattern's parameters, the
 * keys and their skew, the record size, and when to stop. {@link #pattern()} and {@link #limit()} check the
 * options against each other and name the offending one.
 */
public final class TrafficOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--pattern", defaultValue = "steady", converter = PatternType.Converter.class,
            description = "steady, bursts, ramp or on-off (default: ${DEFAULT-VALUE})")
    PatternType pattern;

    @Option(names = "--rate", defaultValue = "100", converter = OptionConverters.NonNegativeDouble.class,
            description = "records/s: the steady rate, the rate while on (on-off), the end rate (ramp),"
                    + " the background rate between bursts (bursts) (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--ramp-from", defaultValue = "0", converter = OptionConverters.NonNegativeDouble.class,
            description = "ramp: records/s at the start (default: ${DEFAULT-VALUE})")
    double rampFrom;

    @Option(names = "--ramp-time", converter = OptionConverters.PositiveDuration.class,
            description = "ramp: how long the ramp takes (default: the whole --duration)")
    Duration rampTime;

    @Option(names = "--burst-size", defaultValue = "500", converter = OptionConverters.PositiveInt.class,
            description = "bursts: records per burst (default: ${DEFAULT-VALUE})")
    int burstSize;

    @Option(names = "--burst-every", defaultValue = "5s", converter = OptionConverters.PositiveDuration.class,
            description = "bursts: time from one burst to the next (default: ${DEFAULT-VALUE})")
    Duration burstEvery;

    @Option(names = "--burst-length", defaultValue = "0s", converter = OptionConverters.NonNegativeDuration.class,
            description = "bursts: how long one burst takes, 0s = back to back (default: ${DEFAULT-VALUE})")
    Duration burstLength;

    @Option(names = "--on", defaultValue = "5s", converter = OptionConverters.PositiveDuration.class,
            description = "on-off: length of each active phase (default: ${DEFAULT-VALUE})")
    Duration on;

    @Option(names = "--off", defaultValue = "5s", converter = OptionConverters.NonNegativeDuration.class,
            description = "on-off: length of each silent phase (default: ${DEFAULT-VALUE})")
    Duration off;

    @Option(names = "--keys", defaultValue = "10", converter = OptionConverters.PositiveInt.class,
            description = "number of distinct record keys k0..k<n-1> (default: ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--zipf", defaultValue = "1.0", converter = OptionConverters.NonNegativeDouble.class,
            description = "Zipf exponent of the key popularity: 0 uniform, 1 k0 twice as frequent as k1"
                    + " (default: ${DEFAULT-VALUE})")
    double zipf;

    @Option(names = "--record-size", defaultValue = "100", converter = OptionConverters.PositiveInt.class,
            description = "bytes per record value, id included (default: ${DEFAULT-VALUE})")
    int recordSize;

    @Option(names = "--duration", converter = OptionConverters.PositiveDuration.class,
            description = "how long to produce, e.g. 30s or 5m (default: 30s unless --count is given)")
    Duration duration;

    @Option(names = "--count", converter = OptionConverters.PositiveLong.class,
            description = "how many records to produce (with --duration: whichever comes first)")
    Long count;

    @Option(names = "--seed", description = "seed of the key choice, for a repeatable key sequence")
    Long seed;

    private static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);

    /** The traffic pattern the options describe. */
    public TrafficPattern pattern() {
        return switch (pattern) {
            case STEADY -> new Steady(requirePositive("--rate", rate));
            case ON_OFF -> new OnOff(requirePositive("--rate", rate), seconds(on), seconds(off));
            case RAMP -> new Ramp(rampFrom, rate, seconds(rampTime != null ? rampTime : rampLength()));
            case BURSTS -> {
                if (burstLength.compareTo(burstEvery) > 0) {
                    throw invalid("--burst-length", format(burstLength), "at most --burst-every ("
                            + format(burstEvery) + ")");
                }
                yield new Bursts(rate, burstSize, seconds(burstEvery), seconds(burstLength));
            }
        };
    }

    /** When to stop: --duration and/or --count, 30 s when neither is given. */
    public TrafficLimit limit() {
        if (duration == null && count == null) {
            return TrafficLimit.of(DEFAULT_DURATION);
        }
        return new TrafficLimit(duration, count == null ? 0 : count);
    }

    private Duration rampLength() {
        if (duration == null) {
            throw invalid("--ramp-time", "(none)", "a duration when --duration is not given (the ramp spans"
                    + " --duration by default)");
        }
        return duration;
    }

    private double requirePositive(String option, double value) {
        if (!(value > 0)) {
            throw invalid(option, Double.toString(value), "a number > 0 for --pattern " + pattern);
        }
        return value;
    }

    private ParameterException invalid(String option, String value, String expected) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': expected "
                + expected + ", got '" + value + "'");
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    private static String format(Duration d) {
        return d.toMillis() + "ms";
    }
}
