package dev.shaper.internals.admission;

/** The batched mode's local mirror of one key's shared bucket; its fields are guarded by its own lock. */
final class Mirror extends KeyMirror<AdmissionRule, Double> {
    final TokenBucket bucket;

    Mirror(byte[] key, AdmissionRule rule, long nowNanos) {
        super(key, rule, nowNanos);
        this.bucket = new TokenBucket(rule.burst(), nowNanos);
    }

    @Override
    AdmissionDecision take(AdmissionRule rule, double cost, long nowNanos) {
        return bucket.tryTake(rule, cost, nowNanos);
    }

    /** {@code balance} NaN: the bucket's key is unusable in Redis, and this key stays on its local mirror. */
    @Override
    void adopt(Double balance, long nowNanos) {
        if (!Double.isNaN(balance)) {
            bucket.reset(balance - unsynced, nowNanos);
        }
    }
}
