package dev.shaper.internals.admission;

import java.util.List;

/**
 * Admission from in-process token buckets, each at this instance's share of its rule (the rule divided among the
 * live instances, see {@link AdmissionRule#share}): on its own when no Redis is configured, and as the fallback
 * while Redis cannot be used, so that the global limit roughly holds through an outage.
 */
final class LocalBackend implements AdmissionBackend {

    private final LocalTokenBuckets buckets = new LocalTokenBuckets();
    private final LiveInstances instances;

    LocalBackend(LiveInstances instances) {
        this.instances = instances;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionRule rule, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        return buckets.tryTake(admissionKey, rule, share(rule, cost), cost, nowNanos);
    }

    /**
     * This instance's share of {@code rule}. The burst is never below the record's cost: a record the shared
     * bucket could admit (cost up to its burst) must stay admissible in an outage.
     */
    AdmissionRule share(AdmissionRule rule, long cost) {
        AdmissionRule share = rule.share(instances());
        return share.burst() >= cost ? share : new AdmissionRule(share.ratePerSecond(), cost);
    }

    /** The live shaper instances as last counted. */
    int instances() {
        return instances.count();
    }

    /** Sets where the bucket of {@code key} stands, e.g. at its share of the balance last known from Redis. */
    void seed(byte[] key, AdmissionRule shared, AdmissionRule share, double tokens, long nowNanos) {
        buckets.seed(key, shared, share, tokens, nowNanos);
    }

    /** The buckets that are not full: the keys whose balance says more than "unused". */
    List<LocalTokenBuckets.Balance> notFull(long nowNanos) {
        return buckets.notFull(nowNanos);
    }

    /** Forgets the full buckets, which carry no information. */
    void evictFull(long nowNanos) {
        buckets.evictFull(nowNanos);
    }
}
