package dev.shaper.demo.traffic;

import java.util.Locale;

/** Number formatting for rates and durations in console text: no trailing {@code .0} on whole numbers. */
public final class Rates {

    private Rates() {
    }

    /** {@code 100} for 100.0, {@code 0.5} for 0.5, at most three decimals. */
    public static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return String.format(Locale.ROOT, "%.3f", value).replaceAll("0+$", "");
    }
}
