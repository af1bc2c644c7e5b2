package dev.shaper.bench.lease;

import dev.shaper.internals.capacity.CapacityLeases;
import dev.shaper.internals.capacity.LeaseCadence;
import dev.shaper.internals.capacity.PriorityDemand;
import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One shaper instance as the lease coordination sees it, on a thread of its own: it renews its lease through the
 * real {@link CapacityLeases} every renewal interval after the previous renewal ended (the shaper's
 * {@link LeaseCadence}: longer with more live instances than the renewal budget covers), and at once when it is told
 * its partitions changed. A renewal not answered within the timeout counts as failed at the timeout, as in the
 * shaper; unlike the shaper, whose next renewal follows while the late one still waits in Redis, the instance waits
 * for the late answer (and drops it) before its next renewal, so that a saturated Redis holds at most one call per
 * instance and the figures stay measurable: a lower bound on how far behind it falls.
 *
 * <p>What it may release follows {@code CapacityCoordinator} and {@code CapacityPool}: the grant while renewals
 * answer in time; after a failed one the lower of the grant and its static shares, and its static shares alone
 * once its last lease is two leases old. Its {@code held} is the higher of that rate and what it
 * released in the last second, as the pool reports it.
 */
final class SimulatedInstance implements Runnable {

    private enum Holding { STATIC, LEASE, HOLD }

    private final int slot;
    private final CapacityLeases leases;
    private final List<Integer> partitions;
    private final double staticShares;
    private final LeaseCadence cadence;
    /** The live instances as of the last answer: the lease's length follows them, as in the shaper. */
    private int instances = 1;
    /** The lease the last answer in time was asked for. */
    private long leaseMs;
    private final GrantLedger ledger;
    private final RenewalLog log;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService watchdog;
    private final long timeoutMs;
    private final SimulatedReleases released = new SimulatedReleases();

    private volatile double demand;
    private double rate;
    private double grant;
    private Holding holding = Holding.STATIC;
    /** When the last answer came in time, and when the last answer came at all. */
    private long lastLeaseMs = -1;
    private long lastAnsweredMs = -1;
    /** The calls made so far, the last one given up on at the timeout, and the last one answered. */
    private long calls;
    private long gaveUpOn;
    private long answeredCall;
    private long firstDueMs;
    private boolean renewSoon;
    private boolean alive = true;

    /**
     * @param staticShares what its partitions' static shares come to: capacity / P x its partitions
     * @param firstDueMs   when it renews first, by {@code clockMs}
     * @param watchdog     gives up on a renewal after {@code timeoutMs}, as the shaper's client does; {@code leases}
     *                     itself must wait longer, so that each instance has one call at most in Redis
     */
    SimulatedInstance(int slot, CapacityLeases leases, List<Integer> partitions, double staticShares,
                      LeaseCadence cadence,
                      GrantLedger ledger, RenewalLog log, LongSupplier clockMs, long firstDueMs,
                      ScheduledExecutorService watchdog, long timeoutMs) {
        this.slot = slot;
        this.leases = leases;
        this.partitions = List.copyOf(partitions);
        this.staticShares = staticShares;
        this.cadence = cadence;
        this.ledger = ledger;
        this.log = log;
        this.clockMs = clockMs;
        this.firstDueMs = firstDueMs;
        this.watchdog = watchdog;
        this.timeoutMs = timeoutMs;
        setRate(staticShares, clockMs.getAsLong());
    }

    List<Integer> partitions() {
        return partitions;
    }

    double demand() {
        return demand;
    }

    /** From now on it asks for {@code unitsPerSecond}, at priority 0. */
    synchronized void demand(double unitsPerSecond) {
        demand = unitsPerSecond;
        released.releaseAt(clockMs.getAsLong(), Math.min(demand, rate));
    }

    /** Renews at once, as after a task joined or left. */
    synchronized void renewSoon() {
        renewSoon = true;
        notifyAll();
    }

    /** The process dies: it releases nothing from now on, and its lease entry lapses in Redis. */
    synchronized void kill() {
        alive = false;
        ledger.set(slot, 0);
        notifyAll();
    }

    @Override
    public void run() {
        try {
            long due = firstDueMs;
            while ((due = awaitDue(due)) >= 0) {
                renew(due);
                due = clockMs.getAsLong() + intervalMs();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            leases.close();
        }
    }

    /** As the shaper: the interval at the instances counted, never more than a quarter of the lease last asked for. */
    private synchronized long intervalMs() {
        long interval = cadence.renewalInterval(instances).toMillis();
        return leaseMs > 0 ? Math.min(interval, leaseMs / LeaseCadence.RENEWALS_PER_LEASE) : interval;
    }

    /** Waits for {@code dueMs} or a call to renew soon; -1 once dead. */
    private synchronized long awaitDue(long dueMs) throws InterruptedException {
        while (alive && !renewSoon) {
            long wait = dueMs - clockMs.getAsLong();
            if (wait <= 0) {
                return dueMs;
            }
            wait(wait);
        }
        renewSoon = false;
        return alive ? clockMs.getAsLong() : -1;
    }

    private void renew(long dueMs) {
        long start = clockMs.getAsLong();
        long call;
        double held;
        Duration leaseLength;
        synchronized (this) {
            call = ++calls;
            held = Math.max(rate, released.lastSecond(start));
            leaseLength = cadence.lease(instances);
        }
        log.sent();
        ScheduledFuture<?> giveUp = watchdog.schedule(() -> giveUp(call), timeoutMs, TimeUnit.MILLISECONDS);
        CapacityLeases.Lease lease;
        try {
            lease = leases.renew(PriorityDemand.ofHighest(demand), partitions, held, leaseLength);
        } catch (RedisUnavailableException | RuntimeException e) {
            giveUp.cancel(false);
            if (!answer(call)) {
                log.failed();
                fallBack(clockMs.getAsLong());
            }
            return;
        }
        giveUp.cancel(false);
        long end = clockMs.getAsLong();
        synchronized (this) {
            boolean inTime = !answer(call);
            log.answered(end - start, lastAnsweredMs < 0 ? -1 : end - lastAnsweredMs, inTime);
            lastAnsweredMs = end;
            // a late answer is one the shaper's client dropped at its timeout: the instance stays fallen back
            if (!alive || !inTime) {
                return;
            }
            grant = lease.grant();
            holding = Holding.LEASE;
            lastLeaseMs = end;
            leaseMs = leaseLength.toMillis();
            instances = Math.max(1, lease.instances());
            setRate(grant, end);
        }
    }

    /**
     * The shaper's client would give up on {@code call} now, unless it was answered; while it still waits, the
     * instance falls back again every renewal, as the shaper does on renewals that keep failing (without their
     * calls).
     */
    private synchronized void giveUp(long call) {
        if (call != calls || answeredCall == call || !alive) {
            return;
        }
        if (gaveUpOn != call) {
            gaveUpOn = call;
            log.failed();
        }
        fallBack(clockMs.getAsLong());
        watchdog.schedule(() -> giveUp(call), intervalMs() + timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** The answer to {@code call}, or its failure, came; returns whether the client had given up on it already. */
    private synchronized boolean answer(long call) {
        answeredCall = call;
        return gaveUpOn == call;
    }

    private synchronized void fallBack(long nowMs) {
        if (!alive) {
            return;
        }
        if (holding == Holding.LEASE) {
            holding = Holding.HOLD;
        }
        if (lastLeaseMs < 0 || nowMs - lastLeaseMs >= 2 * leaseMs) {
            holding = Holding.STATIC;
        }
        setRate(holding == Holding.STATIC ? staticShares : Math.min(grant, staticShares), nowMs);
    }

    /** Whether it is on its static shares now: never leased, or its last answer two leases old. */
    synchronized boolean onStaticShares() {
        return holding == Holding.STATIC;
    }

    private void setRate(double unitsPerSecond, long nowMs) {
        rate = unitsPerSecond;
        ledger.set(slot, unitsPerSecond);
        released.releaseAt(nowMs, Math.min(demand, unitsPerSecond));
    }
}
