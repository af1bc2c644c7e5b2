package dev.shaper.internals.http;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.capacity.CapacityHolding;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /capacity}: the application's capacity as this instance applies it, as JSON (the same figures as the
 * {@code shaper_capacity_*} meters). With the closed loop: its capacity, its bounds, the decision in force and what the
 * writers' feedback showed. With a pool of the total rate (scope {@code cluster}): under {@code "instance"}, what this
 * instance holds and why (a lease, a lease it could not renew, or its static shares), what its lease entry reserves,
 * its renewals, and what its tasks released in the last second and at most in any second. Rates in units per second,
 * times in epoch milliseconds, durations in milliseconds; a figure the loop has not seen is null.
 */
final class CapacityEndpoint {

    private final Supplier<ClosedLoop.Status> status;
    private final Supplier<CapacityHolding> holding;

    /**
     * @param status  the loop's status; null when the capacity is fixed (no closed loop)
     * @param holding what the instance holds of the capacity; null without a pool (no total rate, or scope partition)
     */
    CapacityEndpoint(Supplier<ClosedLoop.Status> status, Supplier<CapacityHolding> holding) {
        this.status = status;
        this.holding = holding;
    }

    BucketsEndpoint.Answer answer() {
        if (status == null && holding == null) {
            return BucketsEndpoint.error(404, "no capacity is shared: " + ShaperConfig.SHAPING_TOTAL_RATE_CONFIG
                    + " is 0 or " + ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG + "=" + ShaperConfig.TOTAL_SCOPE_PARTITION
                    + " (each partition its fixed share), and no closed loop runs ("
                    + ShaperConfig.CAPACITY_ADAPTIVE_CONFIG + "=false)");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        CapacityHolding h = holding == null ? null : holding.get();
        if (status != null) {
            ClosedLoop.Status s = status.get();
            body.put("capacity", s.capacity());
            body.put("min", s.min());
            body.put("max", s.max());
            body.put("reason", s.reason().tag());
            body.put("decidedAtMs", s.decidedAtMs());
            body.put("decidedBy", s.decidedBy());
            body.put("source", s.source().tag());
            body.put("latencyP99Ms", orNull(s.latencyP99Ms()));
            body.put("errorRatio", orNull(s.errorRatio()));
            body.put("feedbackAgeMs", s.feedbackAgeMs() < 0 ? null : s.feedbackAgeMs());
            body.put("feedbackPresent", s.feedbackPresent());
        } else {
            body.put("capacity", h.capacity());
            body.put("reason", "fixed");
        }
        if (h != null) {
            Map<String, Object> instance = new LinkedHashMap<>();
            instance.put("holding", h.holding());
            instance.put("rate", h.rate());
            instance.put("held", h.held());
            instance.put("learning", h.learning());
            instance.put("renewals", h.renewals());
            instance.put("failedRenewals", h.failedRenewals());
            instance.put("releasedLastSecond", h.releasedLastSecond());
            instance.put("mostInOneSecond", h.mostInOneSecond());
            body.put("instance", instance);
        }
        return new BucketsEndpoint.Answer(200, body);
    }

    /** JSON has no NaN: a figure not seen is null. */
    private static Double orNull(double value) {
        return Double.isNaN(value) ? null : value;
    }
}
