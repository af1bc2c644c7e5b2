package dev.shaper.internals.admission;

import java.util.List;

/**
 * Admission from in-process state, each key at this instance's share of its rule (the rule divided among the live
 * instances, see {@link AdmissionRule#share}): on its own when no Redis is configured, and as the fallback while
 * Redis cannot be used, so that the global limit roughly holds through an outage. A single token bucket keeps its
 * {@link LocalTokenBuckets}; every other policy (several limits, windows) its {@link LocalLimits}, every limit kept.
 * A key whose policy moves between one token bucket and several keeps the balance of the bucket they share (the
 * first), rather than starting full: a rule changed live must not grant a fresh burst.
 */
final class LocalBackend implements AdmissionBackend {

    private final LocalTokenBuckets buckets = new LocalTokenBuckets();
    private final LocalLimits limits = new LocalLimits();
    private final LiveInstances instances;

    LocalBackend(LiveInstances instances) {
        this.instances = instances;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionRule rule, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        AdmissionRule share = share(rule, cost);
        if (limits.size() > 0 && !buckets.has(admissionKey)) {
            // The key's policy was several token buckets until now: the first one's balance carries over
            Double tokens = limits.removeFirstBucket(admissionKey, nowNanos);
            if (tokens != null) {
                buckets.carry(admissionKey, rule, share, tokens, nowNanos);
            }
        }
        return buckets.tryTake(admissionKey, rule, share, cost, nowNanos);
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        AdmissionPolicy share = share(policy, cost);
        if (!policy.algorithm().isWindow() && buckets.size() > 0 && !limits.has(admissionKey)) {
            // The key's policy was one token bucket until now: its balance carries over to the first limit
            Double tokens = buckets.remove(admissionKey, nowNanos);
            if (tokens != null) {
                limits.seedFirstBucket(admissionKey, policy, share, tokens, nowNanos);
            }
        }
        return limits.tryTake(admissionKey, policy, share, cost, nowNanos);
    }

    /**
     * This instance's share of {@code rule}. The burst is never below the record's cost: a record the shared
     * bucket could admit (cost up to its burst) must stay admissible in an outage.
     */
    AdmissionRule share(AdmissionRule rule, long cost) {
        AdmissionRule share = rule.share(instances());
        return share.burst() >= cost ? share : new AdmissionRule(share.ratePerSecond(), cost);
    }

    /** This instance's share of {@code policy}, each limit's capacity at least the record's cost (as above). */
    AdmissionPolicy share(AdmissionPolicy policy, long cost) {
        return policy.share(instances(), cost);
    }

    /** The live shaper instances as last counted. */
    int instances() {
        return instances.count();
    }

    /** Sets where the bucket of {@code key} stands, e.g. at its share of the balance last known from Redis. */
    void seed(byte[] key, AdmissionRule shared, AdmissionRule share, double tokens, long nowNanos) {
        buckets.seed(key, shared, share, tokens, nowNanos);
    }

    /** Sets the state of {@code key} to its share of {@code known}, e.g. the state last known from Redis. */
    void seed(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, SharedState known, long nowNanos) {
        limits.seed(key, shared, share, known, instances(), nowNanos);
    }

    /** The buckets that are not full: the keys whose balance says more than "unused". */
    List<LocalTokenBuckets.Balance> notFull(long nowNanos) {
        return buckets.notFull(nowNanos);
    }

    /** The other policies' states that are not unused. */
    List<LocalLimits.Balance> limitsNotUnused(long nowNanos) {
        return limits.notUnused(nowNanos);
    }

    /** Forgets the full buckets and unused states, which carry no information. */
    void evictFull(long nowNanos) {
        buckets.evictFull(nowNanos);
        limits.evictUnused(nowNanos);
    }
}
