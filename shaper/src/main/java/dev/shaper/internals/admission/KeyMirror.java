package dev.shaper.internals.admission;

/**
 * The batched mode's local mirror of one key's shared state: what {@link BatchedMirrors} keeps for every kind of
 * mirror, and how a kind's local state takes a record and takes in what Redis answered. Its fields are guarded by
 * its own lock, under which both methods are called.
 *
 * @param <L> what the key is admitted under: an {@link AdmissionRule} (one token bucket) or an {@link
 *            AdmissionPolicy}
 * @param <S> Redis's answer to a charge of the key: its shared state
 */
abstract class KeyMirror<L, S> {
    final byte[] key;
    /** What the key was last admitted under. */
    L limits;
    /** Admitted here and not yet charged to Redis (for a policy: the same amount for every limit). */
    double unsynced;
    long lastUsedNanos;
    /** Forgotten by a sync: a caller that kept it must look the key's mirror up again. */
    boolean forgotten;

    KeyMirror(byte[] key, L limits, long nowNanos) {
        this.key = key;
        this.limits = limits;
        this.lastUsedNanos = nowNanos;
    }

    /** Takes {@code cost} from the local state if it allows it. */
    abstract AdmissionDecision take(L limits, double cost, long nowNanos);

    /**
     * Sets the local state to the {@code shared} one Redis answered, less what was admitted here and not yet
     * charged; an answer that says the key is unusable in Redis changes nothing.
     */
    abstract void adopt(S shared, long nowNanos);
}
