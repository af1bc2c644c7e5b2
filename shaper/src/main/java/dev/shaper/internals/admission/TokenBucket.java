package dev.shaper.internals.admission;

/**
 * An in-process token bucket: {@code burst} tokens refilled at the limit's rate per second. The balance may go
 * negative when {@link #charge} records consumption that was admitted elsewhere (the batched mode); refusals then
 * last until the debt is refilled.
 */
final class TokenBucket implements LimitState {

    private double tokens;
    private long refilledAtNanos;

    TokenBucket(double tokens, long nowNanos) {
        this.tokens = tokens;
        this.refilledAtNanos = nowNanos;
    }

    @Override
    public double left(AdmissionLimit limit, long nowNanos) {
        refill(limit, nowNanos);
        return tokens;
    }

    @Override
    public void charge(AdmissionLimit limit, double cost, long nowNanos) {
        refill(limit, nowNanos);
        tokens -= cost;
    }

    /** Full: forgetting it changes nothing. */
    @Override
    public boolean isUnused(AdmissionLimit limit, long nowNanos) {
        return left(limit, nowNanos) >= limit.burst();
    }

    @Override
    public void adopt(AdmissionLimit limit, double left, double[] detail, double divisor, double pendingHere,
                      long nowNanos) {
        tokens = left / divisor - pendingHere;
        refilledAtNanos = nowNanos;
    }

    private void refill(AdmissionLimit limit, long nowNanos) {
        long elapsed = nowNanos - refilledAtNanos;
        if (elapsed > 0) {
            tokens = Math.min(limit.burst(), tokens + elapsed / 1e9 * limit.ratePerSecond());
            refilledAtNanos = nowNanos;
        } else if (tokens > limit.burst()) {
            tokens = limit.burst();
        }
    }
}
