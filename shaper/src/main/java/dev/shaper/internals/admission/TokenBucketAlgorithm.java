package dev.shaper.internals.admission;

/**
 * The token bucket: refill {@code rate} per {@code per}, hold at most {@code burst}. In Redis one hash per admission
 * key, {@code shaper:tb:{<key>}}, with a bucket per limit ({@code token-bucket.lua}).
 */
final class TokenBucketAlgorithm extends ScriptedAlgorithm {

    TokenBucketAlgorithm() {
        super("token-bucket", "shaper:tb:", "dev/shaper/token-bucket.lua");
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
}
