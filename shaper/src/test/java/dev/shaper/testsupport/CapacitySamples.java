package dev.shaper.testsupport;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.metrics.ShaperMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The capacity each instance applies ({@code shaper.capacity.rate}) and why, sampled from their meters at the same
 * moments, every few tens of milliseconds, on a daemon thread, until closed.
 */
public final class CapacitySamples implements AutoCloseable {

    /**
     * One moment.
     *
     * @param atMs       when, epoch milliseconds
     * @param capacities each instance's applied capacity, in the order given
     * @param reasons    each instance's reason, in the same order
     */
    public record Sample(long atMs, double[] capacities, Reason[] reasons) {

        /** The first instance's capacity. */
        public double capacity() {
            return capacities[0];
        }

        /** The first instance's reason. */
        public Reason reason() {
            return reasons[0];
        }
    }

    private final ShaperInstance[] instances;
    private final long periodNanos;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private CapacitySamples(long periodMs, ShaperInstance... instances) {
        this.instances = instances;
        this.periodNanos = periodMs * 1_000_000L;
        this.thread = new Thread(this::run, "capacity-samples");
        this.thread.setDaemon(true);
    }

    /** Starts sampling {@code instances} every {@code periodMs}. */
    public static CapacitySamples start(long periodMs, ShaperInstance... instances) {
        CapacitySamples samples = new CapacitySamples(periodMs, instances);
        samples.thread.start();
        return samples;
    }

    /** One instance's capacity now. */
    public static double capacity(ShaperInstance instance) {
        return instance.gauge(ShaperMetrics.CAPACITY_RATE, null, null);
    }

    /** One instance's reason now. */
    public static Reason reason(ShaperInstance instance) {
        for (Reason reason : Reason.values()) {
            if (instance.gauge(ShaperMetrics.CAPACITY_DECISION, "reason", reason.tag()) == 1) {
                return reason;
            }
        }
        throw new IllegalStateException("no reason is 1");
    }

    private void run() {
        while (running) {
            double[] capacities = new double[instances.length];
            Reason[] reasons = new Reason[instances.length];
            for (int i = 0; i < instances.length; i++) {
                capacities[i] = capacity(instances[i]);
                reasons[i] = reason(instances[i]);
            }
            Sample sample = new Sample(System.currentTimeMillis(), capacities, reasons);
            synchronized (samples) {
                samples.add(sample);
            }
            LockSupport.parkNanos(periodNanos);
        }
    }

    /** The samples so far, in order. */
    public List<Sample> all() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /** The samples taken from {@code fromMs} (inclusive) to {@code toMs} (exclusive). */
    public List<Sample> between(long fromMs, long toMs) {
        return all().stream().filter(s -> s.atMs() >= fromMs && s.atMs() < toMs).toList();
    }

    /**
     * The highest first capacity in effect at any time from {@code fromMs} to {@code toMs}: the samples taken then and
     * the last one before (what was in effect at {@code fromMs}), so that a sampler the machine held back for a while
     * still answers.
     */
    public double highestInEffect(long fromMs, long toMs) {
        List<Sample> all = all();
        double highest = Double.NEGATIVE_INFINITY;
        for (Sample s : all) {
            if (s.atMs() < toMs) {
                highest = s.atMs() < fromMs ? s.capacity() : Math.max(highest, s.capacity());
            }
        }
        if (highest == Double.NEGATIVE_INFINITY) {
            throw new IllegalStateException("no capacity sampled before " + toMs);
        }
        return highest;
    }

    /** The first sample from {@code fromMs} on whose first capacity satisfies {@code test}, or null. */
    public Sample first(long fromMs, java.util.function.DoublePredicate test) {
        return all().stream().filter(s -> s.atMs() >= fromMs && test.test(s.capacity())).findFirst().orElse(null);
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
