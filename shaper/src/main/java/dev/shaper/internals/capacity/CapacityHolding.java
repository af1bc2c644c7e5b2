package dev.shaper.internals.capacity;

/**
 * What this instance holds of the application's capacity, and why, as {@code GET /capacity} and the
 * {@code shaper_capacity_*} meters show it.
 *
 * @param capacity           the application's capacity C as the instance has it now, units per second
 * @param holding            what it holds: a lease, a lease it could not renew (hold), or its static shares
 * @param rate               the rate its tasks share now, units per second
 * @param held               what it released in the last second, or its rate if more: what its lease entry reserves
 * @param learning           whether the lease table is being learnt again after it was lost (grants held down)
 * @param renewals           lease renewals that got an answer
 * @param failedRenewals     lease renewals that failed or whose answer was lost
 * @param releasedLastSecond units its tasks released in the last second
 * @param mostInOneSecond    the most units its tasks released in any one second so far
 */
public record CapacityHolding(double capacity, String holding, double rate, double held, boolean learning,
                              long renewals, long failedRenewals, long releasedLastSecond, long mostInOneSecond) {

    /** The holding of {@code pool}, renewed by {@code coordinator} (null without Redis), at wall time {@code wallMs}. */
    public static CapacityHolding of(CapacityPool pool, CapacityCoordinator coordinator, long wallMs) {
        CapacityLeases.Lease lease = coordinator == null ? null : coordinator.lastLease();
        return new CapacityHolding(pool.totalRate(), pool.holding().tag(), pool.pooled(), pool.held(),
                lease != null && lease.learning(),
                coordinator == null ? 0 : coordinator.renewals() - coordinator.failedRenewals(),
                coordinator == null ? 0 : coordinator.failedRenewals(), pool.releasedInLastSecond(wallMs),
                pool.mostInOneSecond());
    }
}
