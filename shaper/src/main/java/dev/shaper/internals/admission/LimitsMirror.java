package dev.shaper.internals.admission;

/**
 * The batched mode's local mirror of one key's shared state: every limit's state, and what was admitted here and not
 * yet charged to Redis. Its fields are guarded by its own lock.
 */
final class LimitsMirror {
    final byte[] key;
    final LimitStates states;
    /** What the key was last admitted under. */
    AdmissionPolicy policy;
    /** Admitted here and not yet charged to Redis (the same amount for every limit). */
    double unsynced;
    long lastUsedNanos;
    /** Forgotten by a sync: a caller that kept it must look the key's mirror up again. */
    boolean forgotten;

    LimitsMirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        this.key = key;
        this.policy = policy;
        this.lastUsedNanos = nowNanos;
        this.states = new LimitStates(policy, nowNanos);
    }

    /** Takes {@code cost} from the local state if every limit allows it. */
    AdmissionDecision take(AdmissionPolicy current, double cost, long nowNanos) {
        return states.tryTake(current, cost, nowNanos);
    }

    /**
     * Sets the local state to the {@code shared} one Redis answered, less what was admitted here and not yet
     * charged; {@code shared} null (the key's Redis state is unusable) changes nothing: the key stays on its mirror.
     */
    void adopt(SharedState shared, long nowNanos) {
        if (shared != null) {
            states.adopt(policy, shared, 1, unsynced, nowNanos);
        }
    }
}
