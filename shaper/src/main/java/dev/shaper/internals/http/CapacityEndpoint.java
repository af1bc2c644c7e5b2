package dev.shaper.internals.http;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /capacity}: the closed loop's capacity as this instance applies it, its bounds, the decision in force and
 * what the writers' feedback showed, as JSON (the same figures as the {@code shaper_capacity_*} meters). Rates in units
 * per second, times in epoch milliseconds, durations in milliseconds; a figure the loop has not seen is null.
 */
final class CapacityEndpoint {

    private final Supplier<ClosedLoop.Status> status;

    /** @param status the loop's status; null when the capacity is fixed (no closed loop) */
    CapacityEndpoint(Supplier<ClosedLoop.Status> status) {
        this.status = status;
    }

    BucketsEndpoint.Answer answer() {
        if (status == null) {
            return BucketsEndpoint.error(404, "the capacity is fixed (" + ShaperConfig.CAPACITY_ADAPTIVE_CONFIG
                    + "=false): it is " + ShaperConfig.SHAPING_TOTAL_RATE_CONFIG + ", and no closed loop runs");
        }
        ClosedLoop.Status s = status.get();
        Map<String, Object> body = new LinkedHashMap<>();
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
        return new BucketsEndpoint.Answer(200, body);
    }

    /** JSON has no NaN: a figure not seen is null. */
    private static Double orNull(double value) {
        return Double.isNaN(value) ? null : value;
    }
}
