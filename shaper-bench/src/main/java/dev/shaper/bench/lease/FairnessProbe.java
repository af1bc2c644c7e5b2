package dev.shaper.bench.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * Samples the live instances' rates against the max-min fair shares of their demands (of the capacity their
 * partitions' leases share): Jain's index at every sample, and how long after a demand change every instance
 * first stood within {@value #TOLERANCE} of its fair share.
 */
final class FairnessProbe implements Runnable {

    /** How close to its fair share (a fraction of it) an instance must be to count as there. */
    static final double TOLERANCE = 0.05;

    /** A phase's fairness: times to the fair shares (ms), changes that never got there, Jain's index at the end. */
    record Fairness(List<Long> reachedMs, int unreached, double jainAtEnd) {
    }

    private record Sample(long atMs, double jain) {
    }

    private final AtomicReferenceArray<SimulatedInstance> slots;
    private final GrantLedger ledger;
    private final double capacity;
    private final int partitions;
    private final LongSupplier clockMs;
    private final List<Sample> samples = new ArrayList<>();
    private final List<Long> reachedMs = new ArrayList<>();
    private int unreached;
    private long changedAtMs = -1;

    FairnessProbe(AtomicReferenceArray<SimulatedInstance> slots, GrantLedger ledger, double capacity, int partitions,
                  LongSupplier clockMs) {
        this.slots = slots;
        this.ledger = ledger;
        this.capacity = capacity;
        this.partitions = partitions;
        this.clockMs = clockMs;
    }

    /** The demands or the instances changed now: the clock to the fair shares starts. */
    synchronized void changed() {
        if (changedAtMs >= 0) {
            unreached++;
        }
        changedAtMs = clockMs.getAsLong();
    }

    /** One sample; run every few tens of milliseconds. */
    @Override
    public void run() {
        long now = clockMs.getAsLong();
        double[] rates = ledger.rates();
        List<Double> demands = new ArrayList<>();
        List<Double> live = new ArrayList<>();
        int covered = 0;
        for (int slot = 0; slot < slots.length(); slot++) {
            SimulatedInstance instance = slots.get(slot);
            if (instance != null) {
                demands.add(instance.demand());
                live.add(rates[slot]);
                covered += instance.partitions().size();
            }
        }
        double[] fair = MaxMinFairShares.of(demands.stream().mapToDouble(Double::doubleValue).toArray(),
                capacity * covered / partitions);
        double[] got = live.stream().mapToDouble(Double::doubleValue).toArray();
        boolean atFairShares = true;
        for (int i = 0; i < got.length; i++) {
            atFairShares &= Math.abs(got[i] - fair[i]) <= TOLERANCE * fair[i];
        }
        record(now, JainIndex.of(got, fair), atFairShares);
    }

    private synchronized void record(long now, double jain, boolean atFairShares) {
        samples.add(new Sample(now, jain));
        // a sample whose rates were read before the change says nothing about it
        if (changedAtMs >= 0 && now >= changedAtMs && atFairShares) {
            reachedMs.add(now - changedAtMs);
            changedAtMs = -1;
        }
    }

    /** The phase's fairness up to now (a change still pending counts as never reached), and starts the next. */
    synchronized Fairness take() {
        long now = clockMs.getAsLong();
        if (changedAtMs >= 0) {
            unreached++;
            changedAtMs = -1;
        }
        double jain = samples.stream().filter(s -> s.atMs() >= now - 1_000).mapToDouble(Sample::jain)
                .average().orElse(Double.NaN);
        Fairness fairness = new Fairness(List.copyOf(reachedMs), unreached, jain);
        samples.clear();
        reachedMs.clear();
        unreached = 0;
        return fairness;
    }
}
