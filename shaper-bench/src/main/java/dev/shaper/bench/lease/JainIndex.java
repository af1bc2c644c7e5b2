package dev.shaper.bench.lease;

/**
 * Jain's fairness index of allocations against the shares each should have: with x = allocation / share,
 * (sum x)^2 / (n sum x^2). 1 when every one gets the same fraction of its share, 1/n when one gets everything.
 */
public final class JainIndex {

    private JainIndex() {
    }

    /**
     * @param allocations what each got
     * @param shares      what each should get, in the same order; those with a share of 0 are left out
     * @return the index, 1 when no one has a share, 0 when those with a share got nothing
     */
    public static double of(double[] allocations, double[] shares) {
        if (allocations.length != shares.length) {
            throw new IllegalArgumentException(allocations.length + " allocations for " + shares.length + " shares");
        }
        double sum = 0;
        double sumOfSquares = 0;
        int n = 0;
        for (int i = 0; i < shares.length; i++) {
            if (shares[i] > 0) {
                double x = allocations[i] / shares[i];
                sum += x;
                sumOfSquares += x * x;
                n++;
            }
        }
        if (n == 0) {
            return 1;
        }
        return sumOfSquares == 0 ? 0 : sum * sum / (n * sumOfSquares);
    }
}
