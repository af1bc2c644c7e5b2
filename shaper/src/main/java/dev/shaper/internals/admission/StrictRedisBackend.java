package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * The strict mode: each decision is one script call to the key's shared state in Redis, for all of its limits,
 * exact and shared with any service that runs the same script. Each answer also sets where the key's local state
 * starts if Redis fails.
 */
final class StrictRedisBackend implements RedisBackend {

    private final RedisLimits redis;
    private final LocalBackend local;

    StrictRedisBackend(RedisLimits redis, LocalBackend local) {
        this.redis = redis;
        this.local = local;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                                   long nowNanos) throws RedisUnavailableException, BucketUnusableException {
        SharedState state = redis.take(admissionKey, policy, cost);
        // The state last known from Redis: where this key's local state starts if Redis fails.
        local.seed(admissionKey, policy, local.share(policy, cost), state, nowNanos);
        return state.toDecision();
    }

    @Override
    public void handBack(long nowNanos) throws RedisUnavailableException {
        HandBack.capShared(redis, local, HandBack.NO_MIRRORS, nowNanos);
    }
}
