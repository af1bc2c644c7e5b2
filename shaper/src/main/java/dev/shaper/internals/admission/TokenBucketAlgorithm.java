package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;

/**
 * The token bucket: refill {@code rate} per {@code per}, hold at most {@code burst}. In Redis one hash per admission
 * key, {@code shaper:tb:{<key>}}, with a bucket per limit ({@code token-bucket.lua}).
 */
final class TokenBucketAlgorithm implements AdmissionAlgorithm {

    /** Prefix of the buckets' hashes; the admission key follows in a {hash tag}. */
    static final String KEY_PREFIX = "shaper:tb:";
    private static final RedisScript SCRIPT = RedisScript.load("dev/shaper/token-bucket.lua");

    @Override
    public String configName() {
        return "token-bucket";
    }

    @Override
    public boolean hasBurst() {
        return true;
    }

    @Override
    public LimitState newState(AdmissionLimit limit, long nowNanos) {
        return new TokenBucket(limit.burst(), nowNanos);
    }

    /** A bucket keeps its balance whatever the new limit (the refill caps it at the new burst). */
    @Override
    public LimitState fit(LimitState current, AdmissionLimit limit, long nowNanos) {
        return current instanceof TokenBucket ? current : newState(limit, nowNanos);
    }

    @Override
    public RedisScript script() {
        return SCRIPT;
    }

    @Override
    public String keyPrefix() {
        return KEY_PREFIX;
    }

    /** The rate per second and the burst. */
    @Override
    public String[] limitArgs(AdmissionLimit limit) {
        return new String[] {AdmissionLimit.number(limit.ratePerSecond()), AdmissionLimit.number(limit.burst())};
    }

    @Override
    public int detailValues() {
        return 0;
    }

    @Override
    public String toString() {
        return configName();
    }
}
