package dev.shaper.bench.lease;

import dev.shaper.internals.capacity.LeaseCadence;
import dev.shaper.internals.capacity.RedisCapacityLeases;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.testsupport.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntToDoubleFunction;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

/**
 * N simulated instances of one application, each on 10 of the P = 10 N input partitions, leasing the capacity C
 * through the real lease script on one redis-server, through the demand patterns one after the other: even, churn
 * (instances dying and others taking over their partitions), skewed (a tenth of the instances ask for most), a
 * hot spot moving and a Redis pause ({@code DEBUG SLEEP}). Each pattern is measured as a phase of its own.
 */
final class LeaseSimulation implements AutoCloseable {

    private static final String APPLICATION = "lease-bench";
    /** How often the fairness is sampled. */
    private static final long SAMPLE_MS = 25;
    /** How long after an instance dies another takes over its partitions, as in a rebalance. */
    private static final long REBALANCE_MS = 300;
    private static final long STACK_BYTES = 256 * 1024;
    /**
     * How long the client waits for an answer: far beyond the shaper's timeout, which the instances keep themselves,
     * so that a late answer is seen (and dropped) before the instance renews again.
     */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(60);

    private final LeaseBenchOptions options;
    private final int n;
    private final int partitions;
    private final LongSupplier clockMs;
    private final RedisClients.Client client;
    private final RedisLoad load;
    private final AtomicReferenceArray<SimulatedInstance> slots;
    private final GrantLedger ledger;
    private final RenewalLog log = new RenewalLog();
    private final FairnessProbe probe;
    private final ScheduledExecutorService sampler;
    private final ScheduledExecutorService watchdog;
    private final List<Thread> threads = new ArrayList<>();
    private final Random random = new Random(42);
    private int generation;
    private long phaseStartMs;
    private RedisLoad.Snapshot redisAtStart;

    /** @param server a redis-server of this simulation's own, with {@code DEBUG} enabled */
    LeaseSimulation(LeaseBenchOptions options, RedisServer server, int instances) {
        this.options = options;
        this.n = instances;
        this.partitions = LeaseBenchOptions.PARTITIONS_PER_INSTANCE * instances;
        long origin = System.nanoTime();
        this.clockMs = () -> (System.nanoTime() - origin) / 1_000_000;
        // one client, one connection per instance as each instance has its own
        this.client = RedisClients.create(server.uri(), ANSWER_WAIT, Duration.ofMillis(100), null);
        this.load = new RedisLoad(server.uri());
        this.slots = new AtomicReferenceArray<>(instances);
        this.ledger = new GrantLedger(instances);
        this.probe = new FairnessProbe(slots, ledger, options.capacity(), partitions, clockMs);
        this.sampler = Executors.newSingleThreadScheduledExecutor(daemon("fairness-probe"));
        this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("renewal-timeouts"));
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Runs every pattern and returns each one's figures. */
    List<PhaseFigures> run() throws InterruptedException {
        List<PhaseFigures> phases = new ArrayList<>();
        sampler.scheduleAtFixedRate(probe, SAMPLE_MS, SAMPLE_MS, TimeUnit.MILLISECONDS);
        long phaseMs = options.phaseMs();
        long intervalMs = options.leaseMs() / 4;

        begin();
        long now = clockMs.getAsLong();
        // instances start at random moments of one renewal interval, as processes do
        for (int slot = 0; slot < n; slot++) {
            place(slot, even(), now + random.nextInt((int) intervalMs));
        }
        probe.changed();
        Thread.sleep(phaseMs);
        phases.add(end("even (all join)"));

        // churn next, on the same even demands: only the instances change
        begin();
        for (int round = 0; round < 3; round++) {
            churn();
            Thread.sleep(Math.max(0, phaseMs / 2 - REBALANCE_MS));
        }
        phases.add(end("churn"));

        begin();
        setDemands(this::skewed);
        Thread.sleep(phaseMs);
        phases.add(end("skewed"));

        begin();
        for (int move = 0; move < 3; move++) {
            // no window is the skewed pattern's, so that every move changes the demands
            int from = (move + 1) * n / 4;
            setDemands(slot -> Math.floorMod(slot - from, n) < hot() ? heavy() : light());
            Thread.sleep(phaseMs / 2);
        }
        phases.add(end("hot spot moving"));

        begin();
        setDemands(this::skewed);
        Thread.sleep(phaseMs / 2);
        String paused = pause();
        probe.changed();
        Thread.sleep(phaseMs);
        phases.add(end(paused));
        return phases;
    }

    /** Puts redis-server to sleep; returns the pattern's name, which says so if Redis did not sleep. */
    private String pause() {
        try {
            load.pause(Duration.ofMillis(options.pauseMs()));
            return "Redis pause";
        } catch (RuntimeException e) {
            return "Redis pause (DEBUG SLEEP failed: " + e.getMessage() + ")";
        }
    }

    private double even() {
        return 2 * options.capacity() / n;
    }

    private double heavy() {
        return 8 * options.capacity() / n;
    }

    private double light() {
        return options.capacity() / (2.0 * n);
    }

    /** The instances of the skewed pattern and of the hot spot: a tenth, at least one. */
    private int hot() {
        return Math.max(1, Math.round(n / 10f));
    }

    private double skewed(int slot) {
        return slot < hot() ? heavy() : light();
    }

    private void setDemands(IntToDoubleFunction demandOfSlot) {
        for (int slot = 0; slot < n; slot++) {
            SimulatedInstance instance = slots.get(slot);
            if (instance != null) {
                instance.demand(demandOfSlot.applyAsDouble(slot));
            }
        }
        probe.changed();
    }

    /** A twentieth of the instances die; after a rebalance new ones run their partitions and renew at once. */
    private void churn() throws InterruptedException {
        List<Integer> dead = new ArrayList<>();
        while (dead.size() < Math.max(1, n / 20)) {
            int slot = random.nextInt(n);
            if (!dead.contains(slot)) {
                dead.add(slot);
            }
        }
        List<Double> demands = new ArrayList<>();
        for (int slot : dead) {
            SimulatedInstance instance = slots.getAndSet(slot, null);
            demands.add(instance.demand());
            instance.kill();
        }
        Thread.sleep(REBALANCE_MS);
        for (int k = 0; k < dead.size(); k++) {
            place(dead.get(k), demands.get(k), clockMs.getAsLong());
        }
        probe.changed();
    }

    private void place(int slot, double demand, long firstDueMs) {
        String id = "sim-" + slot + "-" + generation++;
        List<Integer> own = IntStream.range(slot * LeaseBenchOptions.PARTITIONS_PER_INSTANCE,
                (slot + 1) * LeaseBenchOptions.PARTITIONS_PER_INSTANCE).boxed().toList();
        double capacity = options.capacity();
        LeaseCadence cadence = new LeaseCadence(Duration.ofMillis(options.leaseMs()), options.renewalsPerSecond(),
                partitions);
        RedisCapacityLeases leases = new RedisCapacityLeases(client, new RedisCapacityLeases.Terms(APPLICATION, id,
                () -> capacity, partitions, cadence.longestLease()));
        SimulatedInstance instance = new SimulatedInstance(slot, leases, own, capacity * own.size() / partitions,
                cadence, ledger, log, clockMs, firstDueMs, watchdog, options.timeoutMs());
        instance.demand(demand);
        slots.set(slot, instance);
        Thread thread = new Thread(null, instance, id, STACK_BYTES);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
    }

    private void begin() {
        redisAtStart = load.snapshot();
        log.take();
        ledger.takeHighestSum();
        probe.take();
        phaseStartMs = clockMs.getAsLong();
    }

    private PhaseFigures end(String pattern) {
        // the snapshot first: behind a saturated server it waits its turn, and the phase lasts until its answer
        long asked = clockMs.getAsLong();
        RedisLoad.Snapshot redis = load.snapshot().minus(redisAtStart);
        long answered = clockMs.getAsLong();
        double seconds = (answered - phaseStartMs) / 1000.0;
        FairnessProbe.Fairness fairness = probe.take();
        RenewalLog.Counts renewals = log.take();
        double highest = ledger.takeHighestSum();
        int onStatic = 0;
        for (int slot = 0; slot < n; slot++) {
            SimulatedInstance instance = slots.get(slot);
            if (instance != null && instance.onStaticShares()) {
                onStatic++;
            }
        }
        return new PhaseFigures(n, pattern, seconds, renewals, redis, answered - asked, highest, fairness, onStatic);
    }

    @Override
    public void close() throws InterruptedException {
        sampler.shutdownNow();
        for (int slot = 0; slot < n; slot++) {
            SimulatedInstance instance = slots.getAndSet(slot, null);
            if (instance != null) {
                instance.kill();
            }
        }
        for (Thread thread : threads) {
            thread.join(5_000);
        }
        // after the instances: a renewal that ends while they stop still schedules its timeout
        watchdog.shutdownNow();
        load.close();
        client.close();
    }
}
