package dev.shaper.internals.capacity;

import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.internals.scheduling.BackgroundScheduler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this instance's {@link CapacityPool} on a lease of the cluster-wide capacity: every quarter of a lease it
 * reports the pool's demand and partitions and takes its grant ({@link CapacityLeases}), and again at once when a task
 * joins or leaves (the tasks of one rebalance together: a renewal already waiting to run takes them all). One call
 * per renewal, whatever the traffic; the lease grows with the number of live instances once their renewals together
 * would exceed the renewal budget ({@link LeaseCadence}).
 *
 * <p>When a renewal fails, the instance no longer knows what the others hold: it keeps the last grant or its
 * static shares, whichever is less, for two leases after its last renewal (by then the leases table has forgotten
 * its grant, and every other instance has renewed without it), and then the static shares of the tasks it runs. Both
 * keep the application within its capacity (see {@code capacity-lease.lua}). A renewal that succeeds puts it back on
 * the lease. Each switch is logged once and counted.
 */
public final class CapacityCoordinator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CapacityCoordinator.class);

    /** Where the pool's rate comes from. */
    public enum Source {
        /** A lease of the cluster-wide capacity, renewed through Redis. */
        REDIS,
        /** The static shares of the tasks this instance runs (no lease, or one that could not be renewed). */
        LOCAL;

        /** The name as a metric tag. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final CapacityPool pool;
    private final CapacityLeases leases;
    private final LeaseCadence cadence;
    private final BackgroundScheduler scheduler;
    private final LongSupplier nanoTime;
    private final AtomicLong renewals = new AtomicLong();
    private final AtomicLong failedRenewals = new AtomicLong();
    private final AtomicLong switchesToRedis = new AtomicLong();
    private final AtomicLong switchesToLocal = new AtomicLong();
    private volatile Source source = Source.LOCAL;
    private volatile CapacityLeases.Lease lastLease;
    /** When the last renewal's answer came, by {@link #nanoTime}; meaningful once {@link #lastLease} is set. */
    private long lastLeaseNanos;
    /** The lease the last granted renewal asked for: the grant stands that long. */
    private Duration lastLeaseLength;
    /** When the last renewal was made, by {@link #nanoTime}, answered or not. */
    private long lastRenewalNanos;
    private boolean renewedOnce;
    /** The live instances as of the last lease: the lease's length follows them. */
    private volatile int instances = 1;
    /** Whether a renewal asked for by a task joining or leaving ({@link #renewSoon}) waits to run. */
    private final AtomicBoolean renewalWaiting = new AtomicBoolean();
    private boolean unreachableReported;

    /**
     * @param cadence   how long a grant stands without a renewal and how often it is renewed, by the application's size
     * @param scheduler runs the renewals; closed with this coordinator
     * @param nanoTime  the clock the lease is timed by
     */
    public CapacityCoordinator(CapacityPool pool, CapacityLeases leases, LeaseCadence cadence,
                               BackgroundScheduler scheduler, LongSupplier nanoTime) {
        this.pool = pool;
        this.leases = leases;
        this.cadence = cadence;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
    }

    /** How often the lease is renewed now: four times per lease, so that a lost answer or two costs nothing. */
    public Duration renewalInterval() {
        return cadence.renewalInterval(instances);
    }

    /** Renews now and then every {@link #renewalInterval}, and whenever a task joins or leaves the pool. */
    public void start() {
        pool.onMembershipChange(this::renewSoon);
        scheduler.scheduleWithFixedDelay(this::renewIfDue, Duration.ZERO, cadence.shortestRenewalInterval());
    }

    /**
     * Renews soon on the coordinator's thread, not the caller's: a task joined or left, and the grants should follow
     * before the next periodic renewal. Calls before that renewal runs share it.
     */
    private void renewSoon() {
        if (renewalWaiting.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                renewalWaiting.set(false);
                renew();
            });
        }
    }

    /**
     * The periodic check: renews once the renewal interval at the application's size has passed since the last
     * renewal, and never later than a quarter of the lease that renewal asked for (the count of instances it brought
     * may have lengthened the interval, not the lease its entry holds in Redis). Never early: the budget holds.
     */
    private void renewIfDue() {
        long interval = renewalInterval().toNanos();
        if (lastLeaseLength != null) {
            interval = Math.min(interval, lastLeaseLength.toNanos() / LeaseCadence.RENEWALS_PER_LEASE);
        }
        // A millisecond of slack for the clock's granularity: a tick on time renews on time
        if (!renewedOnce || nanoTime.getAsLong() - lastRenewalNanos >= interval - 1_000_000L) {
            renew();
        }
    }

    /** One renewal; a failure is never thrown, since a periodic task that throws is never run again. */
    void renew() {
        renewals.incrementAndGet();
        renewedOnce = true;
        lastRenewalNanos = nanoTime.getAsLong();
        Duration lease = cadence.lease(instances);
        try {
            CapacityLeases.Lease granted = leases.renew(pool.demandByPriority(), pool.partitions(), pool.held(),
                    lease);
            lastLeaseNanos = nanoTime.getAsLong();
            lastLeaseLength = lease;
            lastLease = granted;
            instances = Math.max(1, granted.instances());
            pool.useLease(granted.grant());
            if (source != Source.REDIS) {
                source = Source.REDIS;
                switchesToRedis.incrementAndGet();
                unreachableReported = false;
                LOG.info("Capacity: on a lease of Redis {}: {}/s of {}/s shared by {} live instance(s)",
                        leases.description(), round(granted.grant()), round(granted.available()),
                        granted.instances());
            }
        } catch (RedisUnavailableException | RuntimeException e) {
            failedRenewals.incrementAndGet();
            fallBack(e);
        }
    }

    private void fallBack(Exception failure) {
        boolean leased = source == Source.REDIS;
        if (leased) {
            source = Source.LOCAL;
            switchesToLocal.incrementAndGet();
            pool.holdLease();
            LOG.warn("Capacity: cannot renew the lease on Redis {} ({}); at most the last grant until it has"
                    + " surely ended, then the static shares of this instance's partitions", leases.description(),
                    failure.getMessage());
            unreachableReported = true;
        } else if (!unreachableReported) {
            LOG.warn("Capacity: no lease from Redis {} ({}); the static shares of this instance's partitions until"
                    + " Redis answers", leases.description(), failure.getMessage());
            unreachableReported = true;
        }
        if (lastLease == null || nanoTime.getAsLong() - lastLeaseNanos >= 2 * lastLeaseLength.toNanos()) {
            pool.useStaticShares();
        }
    }

    private static String round(double rate) {
        return String.format(java.util.Locale.ROOT, "%.1f", rate);
    }

    /** Where the pool's rate comes from now. */
    public Source source() {
        return source;
    }

    /** The last lease granted, or null before the first. */
    public CapacityLeases.Lease lastLease() {
        return lastLease;
    }

    /** Renewals attempted so far: calls to Redis, one round trip each. */
    public long renewals() {
        return renewals.get();
    }

    /** Renewals that failed. */
    public long failedRenewals() {
        return failedRenewals.get();
    }

    /** Switches to {@code to} so far. */
    public long switchesTo(Source to) {
        return to == Source.REDIS ? switchesToRedis.get() : switchesToLocal.get();
    }

    /** Stops the renewals and closes the leases' connection; the grant lapses within a lease. */
    @Override
    public void close() {
        pool.onMembershipChange(() -> { });
        scheduler.close();
        leases.close();
    }
}
