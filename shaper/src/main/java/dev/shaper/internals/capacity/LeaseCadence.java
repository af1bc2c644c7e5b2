package dev.shaper.internals.capacity;

import java.time.Duration;

/**
 * How long a lease of the capacity stands and how often an instance renews it, for the application's size: four
 * renewals per lease, at the configured lease while the instances together renew no more often than the renewal
 * budget ({@code shaper.capacity.renewals.per.second}); beyond that the lease grows with the number of instances, so
 * that the leases cost Redis the same however many instances there are. A grant then stands longer, and a change of
 * demand reaches the fair shares in as many renewals as before, of the longer period. The instances that hold a part
 * of the capacity run a partition each at least, so the count is taken at most at the input partitions: no lease is
 * longer than {@link #longestLease}, which a lease table learnt again after it was lost waits for.
 */
public final class LeaseCadence {

    /** Renewals per lease: a lost answer or two costs nothing. */
    public static final int RENEWALS_PER_LEASE = 4;

    private final long configuredMs;
    private final double renewalsPerSecond;
    private final int inputPartitions;

    /**
     * @param lease             the configured lease ({@code shaper.capacity.lease.ms}): the shortest
     * @param renewalsPerSecond the most renewals per second the application's instances make together, more than 0
     * @param inputPartitions   the input topic's partitions: at most that many instances hold a part
     */
    public LeaseCadence(Duration lease, double renewalsPerSecond, int inputPartitions) {
        if (!(renewalsPerSecond > 0) || lease.isNegative() || lease.isZero() || inputPartitions < 1) {
            throw new IllegalArgumentException("need a lease > 0, renewals per second > 0 and partitions >= 1, got "
                    + lease + ", " + renewalsPerSecond + " and " + inputPartitions);
        }
        this.configuredMs = lease.toMillis();
        this.renewalsPerSecond = renewalsPerSecond;
        this.inputPartitions = inputPartitions;
    }

    /**
     * The lease with {@code instances} live instances: the configured one, or longer to keep within the budget, for
     * at most as many instances as there are input partitions.
     */
    public Duration lease(int instances) {
        int counted = Math.min(Math.max(1, instances), inputPartitions);
        double budgetMs = counted * RENEWALS_PER_LEASE * 1000.0 / renewalsPerSecond;
        return Duration.ofMillis(Math.max(configuredMs, (long) Math.ceil(budgetMs)));
    }

    /** The longest lease any instance holding a part may have: a lost table is learnt again for that long. */
    public Duration longestLease() {
        return lease(inputPartitions);
    }

    /** How often an instance renews with {@code instances} live instances: a quarter of {@link #lease}. */
    public Duration renewalInterval(int instances) {
        return lease(instances).dividedBy(RENEWALS_PER_LEASE);
    }

    /** The shortest renewal interval: a quarter of the configured lease. */
    public Duration shortestRenewalInterval() {
        return Duration.ofMillis(configuredMs).dividedBy(RENEWALS_PER_LEASE);
    }
}
