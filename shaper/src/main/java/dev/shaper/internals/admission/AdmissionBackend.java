package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * One way of making admission decisions: in-process state ({@link LocalBackend}), a call to the shared state in
 * Redis per record ({@link StrictRedisBackend}), or local mirrors of the shared state reconciled with Redis
 * periodically ({@link BatchedRedisBackend}). A backend only decides; the {@link AdmissionController} chooses the
 * one in force and switches between Redis and the local fallback. Every backend handles every {@link
 * AdmissionPolicy} the same way, whatever its algorithm and number of limits.
 */
interface AdmissionBackend {

    /**
     * Takes {@code cost} for {@code admissionKey} from every limit of {@code policy} if each allows it now, else from
     * none; a refusal waits for the limit that needs longest.
     *
     * @param perKey   what admission keeps for this key in the caller's per-key state, or null for none
     * @param nowNanos the admission's clock
     * @throws RedisUnavailableException Redis failed (backends on Redis only): admission switches to local state
     * @throws BucketUnusableException   this key's state in Redis cannot be used: the key is decided locally
     */
    AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                            long nowNanos) throws RedisUnavailableException, BucketUnusableException;
}
