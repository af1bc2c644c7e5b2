package dev.shaper.demo.traffic;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Picks record keys {@code k0 .. k<n-1>} with Zipf-distributed popularity: key {@code k<i>} (rank i + 1) is
 * chosen with probability proportional to {@code 1 / (i + 1)^exponent}. Exponent 0 is uniform; 1 is the
 * classic skew where {@code k0} is twice as frequent as {@code k1}; larger is more skewed. Real tenants are
 * skewed like this, which is why per-key shaping matters.
 */
public final class ZipfKeys {

    private final String[] names;
    private final double[] cumulative;
    private final RandomGenerator random;

    public ZipfKeys(int keys, double exponent, RandomGenerator random) {
        if (keys < 1) {
            throw new IllegalArgumentException("keys must be >= 1, got " + keys);
        }
        if (!(exponent >= 0)) {
            throw new IllegalArgumentException("exponent must be >= 0, got " + exponent);
        }
        this.names = new String[keys];
        this.cumulative = new double[keys];
        this.random = random;
        double total = 0;
        for (int i = 0; i < keys; i++) {
            names[i] = "k" + i;
            total += weight(i, exponent);
            cumulative[i] = total;
        }
        for (int i = 0; i < keys; i++) {
            cumulative[i] /= total;
        }
    }

    private static double weight(int index, double exponent) {
        return 1 / Math.pow(index + 1, exponent);
    }

    /** The next key, drawn at random. */
    public String next() {
        return names[indexOf(random.nextDouble())];
    }

    /** The key a uniform draw {@code u} in [0, 1) maps to (exposed for tests). */
    int indexOf(double u) {
        int found = Arrays.binarySearch(cumulative, u);
        int index = found >= 0 ? found + 1 : -found - 1;
        return Math.min(index, names.length - 1);
    }

    /** The probability of the key at {@code index} ({@code k<index>}). */
    public double probability(int index) {
        return cumulative[index] - (index == 0 ? 0 : cumulative[index - 1]);
    }

    public int size() {
        return names.length;
    }
}
