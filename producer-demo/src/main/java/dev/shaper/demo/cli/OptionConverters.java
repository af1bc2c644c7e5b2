package dev.shaper.demo.cli;

import dev.shaper.demo.db.DbSlowdown;
import java.time.Duration;
import java.util.function.DoublePredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converters that check an option's value as they read it. Picocli turns their messages into
 * {@code Invalid value for option '--keys' (<keys>): expected a whole number >= 1, got '0'}: the option,
 * what it expects and what it got, with no stack trace.
 */
public final class OptionConverters {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private OptionConverters() {
    }

    /** A whole number >= 1. */
    public static final class PositiveInt implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) wholeNumber(value, 1, Integer.MAX_VALUE);
        }
    }

    /** A whole number >= 1 (long). */
    public static final class PositiveLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return wholeNumber(value, 1, Long.MAX_VALUE);
        }
    }

    /** A number > 0. */
    public static final class PositiveDouble implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            return number(value, "a number > 0", d -> d > 0);
        }
    }

    /** A number >= 0. */
    public static final class NonNegativeDouble implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            return number(value, "a number >= 0", d -> d >= 0);
        }
    }

    /** A duration > 0 with a unit: {@code 500ms}, {@code 10s}, {@code 1.5m}, {@code 1h}. */
    public static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration d = duration(value, "a duration > 0");
            if (d.isZero()) {
                throw expected("a duration > 0 such as 500ms, 10s or 2m", value);
            }
            return d;
        }
    }

    /** A duration >= 0 with a unit, as {@link PositiveDuration}; {@code 0s} allowed. */
    public static final class NonNegativeDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return duration(value, "a duration >= 0");
        }
    }

    /**
     * A database slowdown, {@code START+LENGTH:DELAY} such as {@code 10s+10s:50ms}: from START after the writer
     * starts, for LENGTH, each database batch DELAY slower; each a duration as {@link PositiveDuration} reads it.
     */
    public static final class DbSlowdownSpec implements ITypeConverter<DbSlowdown> {

        private static final Pattern SPEC = Pattern.compile("([^+:]+)\\+([^+:]+):([^+:]+)");
        private static final String EXPECTED = "START+LENGTH:DELAY with LENGTH and DELAY > 0, such as 10s+10s:50ms"
                + " (from 10 s after the start, for 10 s, each database batch 50 ms slower)";

        @Override
        public DbSlowdown convert(String value) {
            Matcher m = SPEC.matcher(value.trim());
            if (!m.matches()) {
                throw expected(EXPECTED, value);
            }
            try {
                return new DbSlowdown(duration(m.group(1), EXPECTED), duration(m.group(2), EXPECTED),
                        duration(m.group(3), EXPECTED));
            } catch (TypeConversionException | IllegalArgumentException e) {
                // One message for the whole value: which part was wrong is plain from the example.
                throw expected(EXPECTED, value);
            }
        }
    }

    private static long wholeNumber(String value, long min, long max) {
        String expected = "a whole number >= " + min;
        try {
            long n = Long.parseLong(value.trim());
            if (n < min) {
                throw expected(expected, value);
            }
            if (n > max) {
                throw expected("a whole number <= " + max, value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw expected(expected, value);
        }
    }

    private static double number(String value, String expected, DoublePredicate valid) {
        try {
            double d = Double.parseDouble(value.trim());
            if (Double.isNaN(d) || Double.isInfinite(d) || !valid.test(d)) {
                throw expected(expected, value);
            }
            return d;
        } catch (NumberFormatException e) {
            throw expected(expected, value);
        }
    }

    static Duration duration(String value, String expected) {
        Matcher m = DURATION.matcher(value.trim());
        if (!m.matches()) {
            throw expected(expected + " such as 500ms, 10s or 2m", value);
        }
        double amount = Double.parseDouble(m.group(1));
        double millis = switch (m.group(2)) {
            case "ms" -> amount;
            case "s" -> amount * 1_000;
            case "m" -> amount * 60_000;
            default -> amount * 3_600_000;
        };
        if (millis > Duration.ofDays(365).toMillis()) {
            throw expected(expected + " of at most a year", value);
        }
        return Duration.ofMillis(Math.round(millis));
    }

    private static TypeConversionException expected(String what, String value) {
        return new TypeConversionException("expected " + what + ", got '" + value + "'");
    }
}
