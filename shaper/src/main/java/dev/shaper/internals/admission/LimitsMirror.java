package dev.shaper.internals.admission;

/**
 * The batched mode's local mirror of one key's shared state under a policy other than one token bucket (see {@link
 * Mirror} for that one): every limit's state, and what was admitted here and not yet charged to Redis. Its fields
 * are guarded by its own lock.
 */
final class LimitsMirror extends KeyMirror<AdmissionPolicy, SharedState> {
    final LimitStates states;

    LimitsMirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        super(key, policy, nowNanos);
        this.states = new LimitStates(policy, nowNanos);
    }

    @Override
    AdmissionDecision take(AdmissionPolicy policy, double cost, long nowNanos) {
        return states.tryTake(policy, cost, nowNanos);
    }

    /** {@code state} null: the key's Redis state is unusable, and this key stays on its local mirror. */
    @Override
    void adopt(SharedState state, long nowNanos) {
        if (state != null) {
            states.adopt(limits, state, 1, unsynced, nowNanos);
        }
    }
}
