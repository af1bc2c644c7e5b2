package dev.shaper.bench.lease;

import java.util.Arrays;

/**
 * The rate every simulated instance may release at now (its grant, its held grant or its static shares; 0 once
 * dead), by slot, and the highest sum seen: checked at every change, so no instant in between is missed.
 */
final class GrantLedger {

    private final double[] rates;
    private double sum;
    private double highestSum;

    GrantLedger(int slots) {
        this.rates = new double[slots];
    }

    /** The instance in {@code slot} may release {@code rate} from now on. */
    synchronized void set(int slot, double rate) {
        sum += rate - rates[slot];
        rates[slot] = rate;
        highestSum = Math.max(highestSum, sum);
    }

    /** Every slot's rate now, and the sum computed afresh (the running sum's rounding never builds up). */
    synchronized double[] rates() {
        sum = Arrays.stream(rates).sum();
        highestSum = Math.max(highestSum, sum);
        return rates.clone();
    }

    /** The highest sum since the last call, and starts anew from the sum now. */
    synchronized double takeHighestSum() {
        double highest = highestSum;
        highestSum = sum;
        return highest;
    }
}
