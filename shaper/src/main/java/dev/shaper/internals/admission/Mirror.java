package dev.shaper.internals.admission;

/** The batched mode's local mirror of one key's shared bucket; its fields are guarded by its own lock. */
final class Mirror {
    final byte[] key;
    final TokenBucket bucket;
    AdmissionRule rule;
    /** Admitted here and not yet charged to Redis. */
    double unsynced;
    long lastUsedNanos;
    /** Forgotten by a sync: a caller that kept it must look the key's mirror up again. */
    boolean forgotten;

    Mirror(byte[] key, AdmissionRule rule, long nowNanos) {
        this.key = key;
        this.rule = rule;
        this.bucket = new TokenBucket(rule.burst(), nowNanos);
        this.lastUsedNanos = nowNanos;
    }
}
