package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * One way of making admission decisions: in-process state ({@link LocalBackend}), a call to the shared state in
 * Redis per record ({@link StrictRedisBackend}), or local mirrors of the shared state reconciled with Redis
 * periodically ({@link BatchedRedisBackend}). A backend only decides; the {@link AdmissionController} chooses the
 * one in force and switches between Redis and the local fallback.
 *
 * <p>Two entry points: a single token bucket (today's admission, kept on its own path so that its decisions and
 * cost do not change), and any other {@link AdmissionPolicy}: several limits, or a window algorithm.
 */
interface AdmissionBackend {

    /**
     * Takes {@code cost} for {@code admissionKey} if {@code rule} allows that much now.
     *
     * @param perKey   what admission keeps for this key in the caller's per-key state, or null for none
     * @param nowNanos the admission's clock
     * @throws RedisUnavailableException Redis failed (backends on Redis only): admission switches to local buckets
     * @throws BucketUnusableException   this key's bucket in Redis cannot be used: the key is decided locally
     */
    AdmissionDecision admit(byte[] admissionKey, AdmissionRule rule, long cost, KeyAdmission perKey, long nowNanos)
            throws RedisUnavailableException, BucketUnusableException;

    /**
     * Takes {@code cost} for {@code admissionKey} from every limit of {@code policy} if each allows that much now,
     * else from none; a refusal waits for the limit that needs longest. For a policy that is not a single token
     * bucket (the caller sends that one to the other method).
     *
     * @throws RedisUnavailableException as above
     * @throws BucketUnusableException   one of this key's counters in Redis cannot be used: the key is decided locally
     */
    AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                            long nowNanos) throws RedisUnavailableException, BucketUnusableException;
}
