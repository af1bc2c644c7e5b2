package dev.shaper.internals.admission;

/**
 * The batched mode's local mirror of one key's shared state under a policy other than one token bucket (see {@link
 * Mirror} for that one): every limit's state, and what was admitted here and not yet charged to Redis. Its fields
 * are guarded by its own lock.
 */
final class LimitsMirror {
    final byte[] key;
    final LimitStates states;
    AdmissionPolicy policy;
    /** Admitted here and not yet charged to Redis: the same amount for every limit. */
    double unsynced;
    long lastUsedNanos;
    /** Forgotten by a sync: a caller that kept it must look the key's mirror up again. */
    boolean forgotten;

    LimitsMirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        this.key = key;
        this.policy = policy;
        this.states = new LimitStates(policy, nowNanos);
        this.lastUsedNanos = nowNanos;
    }
}
