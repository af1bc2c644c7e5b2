package dev.shaper.internals.capacity;

import java.util.Arrays;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Units per second asked for at each priority (0 the highest): what a task, an instance or the application could use
 * now, so that the capacity goes to priority 0 first, then 1, and so on. Immutable.
 */
public final class PriorityDemand {

    /** Nothing asked at any priority. */
    public static final PriorityDemand NONE = new PriorityDemand(new double[0]);

    /** Index: priority; value: units per second (0 or more). */
    private final double[] byPriority;

    private PriorityDemand(double[] byPriority) {
        this.byPriority = byPriority;
    }

    /** {@code unitsPerSecond} at priority 0, as every demand was before priorities. */
    public static PriorityDemand ofHighest(double unitsPerSecond) {
        return of(new double[] {unitsPerSecond});
    }

    /** A demand from units per second indexed by priority (copied; negative values count as 0). */
    public static PriorityDemand of(double[] unitsPerSecondByPriority) {
        int last = unitsPerSecondByPriority.length - 1;
        while (last >= 0 && !(unitsPerSecondByPriority[last] > 0)) {
            last--;
        }
        double[] copy = new double[last + 1];
        for (int p = 0; p <= last; p++) {
            copy[p] = Math.max(0, unitsPerSecondByPriority[p]);
        }
        return copy.length == 0 ? NONE : new PriorityDemand(copy);
    }

    /** The lowest priority asked at (the highest number) plus one: priorities below it ask nothing. */
    public int levels() {
        return byPriority.length;
    }

    /** Units per second asked at {@code priority}. */
    public double at(int priority) {
        return priority < byPriority.length ? byPriority[priority] : 0;
    }

    /** All priorities together. */
    public double total() {
        double sum = 0;
        for (double d : byPriority) {
            sum += d;
        }
        return sum;
    }

    /** This and {@code other}, priority by priority. */
    public PriorityDemand plus(PriorityDemand other) {
        double[] sum = Arrays.copyOf(byPriority, Math.max(byPriority.length, other.byPriority.length));
        for (int p = 0; p < other.byPriority.length; p++) {
            sum[p] += other.byPriority[p];
        }
        return of(sum);
    }

    /** As the lease script takes it: {@code priority:units} pairs, comma separated ("" for none). */
    public String encode() {
        StringJoiner pairs = new StringJoiner(",");
        for (int p = 0; p < byPriority.length; p++) {
            if (byPriority[p] > 0) {
                pairs.add(p + ":" + String.format(Locale.ROOT, "%.6g", byPriority[p]).trim());
            }
        }
        return pairs.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PriorityDemand other && Arrays.equals(byPriority, other.byPriority);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(byPriority);
    }

    @Override
    public String toString() {
        return "PriorityDemand[" + encode() + "]";
    }
}
