package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * The strict mode: each decision is one call to the key's shared state in Redis, exact and shared with any service
 * that runs the same script: one token bucket, or for any other policy one script call for all of the key's limits.
 * Each answer also sets where the key's local state starts if Redis fails.
 */
final class StrictRedisBackend implements RedisBackend {

    private final RedisTokenBuckets redis;
    private final LocalBackend local;

    StrictRedisBackend(RedisTokenBuckets redis, LocalBackend local) {
        this.redis = redis;
        this.local = local;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionRule rule, long cost, KeyAdmission perKey,
                                   long nowNanos) throws RedisUnavailableException, BucketUnusableException {
        AdmissionDecision decision = redis.take(admissionKey, rule, cost);
        // The balance last known from Redis: where this key's local bucket starts if Redis fails.
        local.seed(admissionKey, rule, local.share(rule, cost), decision.tokensLeft() / local.instances(), nowNanos);
        return decision;
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
        HandBack.capSharedBuckets(redis, local, HandBack.NO_MIRRORS, nowNanos);
        HandBack.capSharedLimits(redis, local, HandBack.NO_LIMIT_MIRRORS, nowNanos);
    }
}
