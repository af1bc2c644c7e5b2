package dev.shaper.bench.lease;

/**
 * What one demand pattern measured with N instances.
 *
 * @param instances      N
 * @param pattern        the demand pattern
 * @param seconds        how long the phase ran
 * @param renewals       the renewals the instances made
 * @param redis          what redis-server spent in the phase
 * @param infoWaitMs     how long {@code INFO} took to answer at the phase's end: how far behind Redis was
 * @param highestSum     the highest sum of the rates the instances could release at, units per second
 * @param fairness       how close the rates came to the max-min fair shares, and how fast
 * @param onStaticShares instances on their static shares at the phase's end
 */
record PhaseFigures(int instances, String pattern, double seconds, RenewalLog.Counts renewals,
                    RedisLoad.Snapshot redis, long infoWaitMs, double highestSum, FairnessProbe.Fairness fairness,
                    int onStaticShares) {
}
