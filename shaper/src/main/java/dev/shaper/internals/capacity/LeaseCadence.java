package dev.shaper.internals.capacity;

import java.time.Duration;

/**
 * How long a lease of the capacity stands and how often an instance renews it, for the application's size: four
 * renewals per lease, at the configured lease while the instances together renew no more often than the renewal
 * budget ({@code shaper.capacity.renewals.per.second}); beyond that the lease grows with the number of instances, so
 * that the leases cost Redis the same however many instances there are. A grant then stands longer, and a change of
 * demand reaches the fair shares in as many renewals as before, of the longer period.
 */
public final class LeaseCadence {

    /** Renewals per lease: a lost answer or two costs nothing. */
    public static final int RENEWALS_PER_LEASE = 4;

    private final long configuredMs;
    private final double renewalsPerSecond;

    /**
     * @param lease             the configured lease ({@code shaper.capacity.lease.ms}): the shortest
     * @param renewalsPerSecond the most renewals per second the application's instances make together, more than 0
     */
    public LeaseCadence(Duration lease, double renewalsPerSecond) {
        if (!(renewalsPerSecond > 0) || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("need a lease > 0 and renewals per second > 0, got " + lease + " and "
                    + renewalsPerSecond);
        }
        this.configuredMs = lease.toMillis();
        this.renewalsPerSecond = renewalsPerSecond;
    }

    /** The lease with {@code instances} live instances: the configured one, or longer to keep within the budget. */
    public Duration lease(int instances) {
        double budgetMs = Math.max(1, instances) * RENEWALS_PER_LEASE * 1000.0 / renewalsPerSecond;
        return Duration.ofMillis(Math.max(configuredMs, (long) Math.ceil(budgetMs)));
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
