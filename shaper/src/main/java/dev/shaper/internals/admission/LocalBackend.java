package dev.shaper.internals.admission;

import java.util.List;

/**
 * Admission from in-process state, each key at this instance's share of its policy (each limit divided among the
 * live instances, see {@link AdmissionAlgorithm#share}): on its own when no Redis is configured, and as the fallback
 * while Redis cannot be used, so that the global limit roughly holds through an outage. A key whose policy changes
 * keeps what its limits can carry over ({@link LimitStates}), rather than starting unused: a rule changed live must
 * not grant a fresh burst.
 */
final class LocalBackend implements AdmissionBackend {

    private final LocalLimits limits = new LocalLimits();
    private final LiveInstances instances;

    LocalBackend(LiveInstances instances) {
        this.instances = instances;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        return limits.tryTake(admissionKey, policy, share(policy, cost), cost, nowNanos);
    }

    /**
     * This instance's share of {@code policy}, each limit's capacity at least the record's cost: a record the shared
     * limits could admit must stay admissible in an outage.
     */
    AdmissionPolicy share(AdmissionPolicy policy, long cost) {
        return policy.share(instances(), cost);
    }

    /** The live shaper instances as last counted. */
    int instances() {
        return instances.count();
    }

    /** Sets the state of {@code key} to its share of {@code known}, e.g. the state last known from Redis. */
    void seed(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, SharedState known, long nowNanos) {
        limits.seed(key, shared, share, known, instances(), nowNanos);
    }

    /** The states that are not unused: the keys whose state says more than "unused". */
    List<LocalLimits.Balance> notUnused(long nowNanos) {
        return limits.notUnused(nowNanos);
    }

    /** Forgets the unused states, which carry no information. */
    void evictUnused(long nowNanos) {
        limits.evictUnused(nowNanos);
    }
}
