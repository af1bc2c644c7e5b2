package dev.shaper.internals.admission;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One limit of an admission key, as a rule lists it under {@code admission.limits}: at most {@code amount} units
 * per {@code periodMillis}. With an algorithm that has a burst ({@link AdmissionAlgorithm#hasBurst}, a token bucket)
 * that is a refill rate ({@link #ratePerSecond()}) and {@code burst} is the capacity; with a window algorithm
 * {@code periodMillis} is the window's length, {@code amount} the most one window admits, and {@code burst} equals
 * {@code amount} (a window has no burst of its own).
 *
 * @param amount       units per period, a finite number > 0 (at least 1 for a window, see the rules file)
 * @param periodMillis the period, from 1 ms to {@link #MAX_PERIOD_MS}
 * @param burst        the most a record may cost, and for a token bucket its capacity; finite and >= 1
 */
public record AdmissionLimit(double amount, long periodMillis, double burst) {

    /** The longest period: 365 days ({@code 1y}). */
    public static final long MAX_PERIOD_MS = 365L * 24 * 3600 * 1000;

    private static final Pattern PERIOD = Pattern.compile("([0-9]{1,12})(ms|s|m|h|d|y)");

    public AdmissionLimit {
        if (!(amount > 0) || Double.isInfinite(amount)) {
            throw new IllegalArgumentException("admission limit amount must be a finite number > 0, got " + amount);
        }
        if (periodMillis < 1 || periodMillis > MAX_PERIOD_MS) {
            throw new IllegalArgumentException("admission limit period must be from 1 ms to " + MAX_PERIOD_MS
                    + " ms, got " + periodMillis);
        }
        if (!(burst >= 1) || Double.isInfinite(burst)) {
            throw new IllegalArgumentException("admission limit burst must be a finite number >= 1, got " + burst);
        }
    }

    /** A token bucket of {@code rule}'s rate per second and burst: the single-limit form. */
    public static AdmissionLimit of(AdmissionRule rule) {
        return new AdmissionLimit(rule.ratePerSecond(), 1000, rule.burst());
    }

    /** Units per second: a token bucket's refill rate. */
    public double ratePerSecond() {
        return periodMillis == 1000 ? amount : amount * 1000 / periodMillis;
    }

    /** The period in nanoseconds. */
    public long periodNanos() {
        return periodMillis * 1_000_000L;
    }

    /**
     * Reads a period as rules files write it: a whole number and a unit, {@code ms}, {@code s}, {@code m} (minutes),
     * {@code h}, {@code d} or {@code y} (365 days), e.g. {@code 100ms}, {@code 1s}, {@code 1h}; -1 if {@code text}
     * is not one, 0 if it is out of range (below 1 ms or above {@link #MAX_PERIOD_MS}).
     */
    public static long parsePeriodMillis(String text) {
        Matcher m = PERIOD.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            return -1;
        }
        long value = Long.parseLong(m.group(1));
        long unit = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1000;
            case "m" -> 60_000;
            case "h" -> 3_600_000;
            case "d" -> 86_400_000;
            default -> MAX_PERIOD_MS;
        };
        if (value == 0 || value > MAX_PERIOD_MS / unit) {
            return 0;
        }
        return value * unit;
    }

    /** A period in the largest unit that writes it whole: {@code 100ms}, {@code 1s}, {@code 90s}, {@code 1h}. */
    public static String formatPeriod(long millis) {
        if (millis % MAX_PERIOD_MS == 0) {
            return millis / MAX_PERIOD_MS + "y";
        }
        long[] units = {86_400_000, 3_600_000, 60_000, 1000};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % units[i] == 0) {
                return millis / units[i] + names[i];
            }
        }
        return millis + "ms";
    }

    /** E.g. {@code 10 per 1s (burst 20)}, or for a window {@code 10000 per 1h}. */
    public String describe(AdmissionAlgorithm algorithm) {
        String text = number(amount) + " per " + formatPeriod(periodMillis);
        return algorithm.hasBurst() ? text + " (burst " + number(burst) + ")" : text;
    }

    public static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
    }
}
