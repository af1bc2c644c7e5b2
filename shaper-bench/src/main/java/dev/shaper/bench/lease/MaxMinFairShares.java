package dev.shaper.bench.lease;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The max-min fair shares of a capacity among demands, computed apart from the lease script so that the benchmark
 * can judge the script's grants by a yardstick of its own.
 */
public final class MaxMinFairShares {

    private MaxMinFairShares() {
    }

    /**
     * Water-filling: ascending by demand, each gets its demand while that is below an equal split of what is left,
     * and the others split the rest evenly. When every demand is met, what is left is split evenly among all, as
     * the lease script hands out headroom.
     *
     * @param demands  units per second each asks for (negative counts as 0)
     * @param capacity units per second to share
     * @return each one's share, in the order of {@code demands}
     */
    public static double[] of(double[] demands, double capacity) {
        int n = demands.length;
        double[] shares = new double[n];
        if (n == 0) {
            return shares;
        }
        int[] ascending = IntStream.range(0, n).boxed()
                .sorted(Comparator.comparingDouble(i -> demands[i])).mapToInt(Integer::intValue).toArray();
        double remaining = Math.max(0, capacity);
        for (int k = 0; k < n; k++) {
            int i = ascending[k];
            double level = remaining / (n - k);
            double demand = Math.max(0, demands[i]);
            if (demand > level) {
                for (int j = k; j < n; j++) {
                    shares[ascending[j]] = level;
                }
                return shares;
            }
            shares[i] = demand;
            remaining -= demand;
        }
        double headroom = remaining / n;
        return Arrays.stream(shares).map(share -> share + headroom).toArray();
    }
}
