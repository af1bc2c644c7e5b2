package dev.shaper.internals.admission;

/**
 * One way of making admission decisions: in-process buckets ({@link LocalBackend}), a call to the shared bucket
 * in Redis per record ({@link StrictRedisBackend}), or local mirrors of the shared buckets reconciled with Redis
 * periodically ({@link BatchedRedisBackend}). A backend only decides; the {@link AdmissionController} chooses the
 * one in force and switches between Redis and the local fallback. Other algorithms (fixed or sliding windows,
 * several limits per key) are further implementations.
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
}
