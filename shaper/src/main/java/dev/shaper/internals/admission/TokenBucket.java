package dev.shaper.internals.admission;

/**
 * An in-process token bucket. Times are nanoseconds from the caller's clock, so tests advance time instead
 * of sleeping. Not thread-safe; {@link LocalTokenBuckets} guards it.
 *
 * <p>The balance may go negative when {@link #charge} records consumption that was admitted elsewhere
 * (the batched mode); refusals then last until the debt is refilled.
 */
final class TokenBucket {

    private double tokens;
    private long refilledAtNanos;

    TokenBucket(double tokens, long nowNanos) {
        this.tokens = tokens;
        this.refilledAtNanos = nowNanos;
    }

    /** Takes {@code cost} tokens if there are enough. */
    AdmissionDecision tryTake(AdmissionRule rule, double cost, long nowNanos) {
        refill(rule, nowNanos);
        if (tokens >= cost) {
            tokens -= cost;
            return AdmissionDecision.allowed(tokens);
        }
        return AdmissionDecision.refused(tokens, (cost - tokens) / rule.ratePerSecond());
    }

    /** Takes {@code cost} tokens whatever the balance. */
    void charge(AdmissionRule rule, double cost, long nowNanos) {
        refill(rule, nowNanos);
        tokens -= cost;
    }

    /** Replaces the balance, e.g. with the shared one read from Redis. */
    void reset(double tokens, long nowNanos) {
        this.tokens = tokens;
        this.refilledAtNanos = nowNanos;
    }

    double tokens(AdmissionRule rule, long nowNanos) {
        refill(rule, nowNanos);
        return tokens;
    }

    /** True when the bucket is full, i.e. forgetting it changes nothing. */
    boolean isFull(AdmissionRule rule, long nowNanos) {
        return tokens(rule, nowNanos) >= rule.burst();
    }

    private void refill(AdmissionRule rule, long nowNanos) {
        long elapsed = nowNanos - refilledAtNanos;
        if (elapsed > 0) {
            tokens = Math.min(rule.burst(), tokens + elapsed / 1e9 * rule.ratePerSecond());
            refilledAtNanos = nowNanos;
        } else if (tokens > rule.burst()) {
            tokens = rule.burst();
        }
    }
}
