package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.capacity.CapacityHolding;
import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code GET /capacity} without a server: the closed loop's status and the instance's holding as JSON. */
class CapacityEndpointTest {

    @Test
    void shouldAnswerTheLoopsStatusWhenTheCapacityIsAdaptive() {
        // Given: a loop on the Redis decision, cut for the latency
        ClosedLoop.Status status = new ClosedLoop.Status(280, 80, 400, Reason.LATENCY, 1_764_000_000_500L, "host-a1",
                ClosedLoop.Source.REDIS, 200, 0.002, 350, true);

        // When: an operator asks
        BucketsEndpoint.Answer answer = new CapacityEndpoint(() -> status, null).answer();

        // Then: every figure, the reason and the source as their metric tags
        assertThat(answer.status()).isEqualTo(200);
        assertThat(Json.read(new String(Json.write(answer.body()), java.nio.charset.StandardCharsets.UTF_8)))
                .containsExactly(Map.entry("capacity", 280.0), Map.entry("min", 80.0), Map.entry("max", 400.0),
                        Map.entry("reason", "latency"), Map.entry("decidedAtMs", 1_764_000_000_500L),
                        Map.entry("decidedBy", "host-a1"), Map.entry("source", "redis"),
                        Map.entry("latencyP99Ms", 200.0), Map.entry("errorRatio", 0.002),
                        Map.entry("feedbackAgeMs", 350), Map.entry("feedbackPresent", true));
    }

    @Test
    void shouldAnswerNullForWhatTheLoopHasNotSeenWhenNoWriterReportedYet() {
        // Given: a loop that has seen no report
        ClosedLoop.Status status = new ClosedLoop.Status(400, 80, 400, Reason.NO_FEEDBACK, 1_764_000_000_000L,
                "host-a1", ClosedLoop.Source.LOCAL, Double.NaN, Double.NaN, -1, false);

        // When/Then: the figures it has not seen are null, not NaN (which JSON lacks)
        Map<String, Object> body = new CapacityEndpoint(() -> status, null).answer().body();
        assertThat(body).containsEntry("latencyP99Ms", null).containsEntry("errorRatio", null)
                .containsEntry("feedbackAgeMs", null).containsEntry("source", "local")
                .containsEntry("reason", "no_feedback");
    }

    @Test
    void shouldAnswerNotFoundNamingTheSettingsWhenNoCapacityIsShared() {
        BucketsEndpoint.Answer answer = new CapacityEndpoint(null, null).answer();

        assertThat(answer.status()).isEqualTo(404);
        assertThat((String) answer.body().get("error")).contains("shaper.capacity.adaptive=false",
                "shaper.shaping.total.scope=partition");
    }

    @Test
    void shouldAnswerWhatTheInstanceHoldsAndWhyBesideAFixedCapacity() {
        // Given: a fixed capacity of 400/s, this instance on a lease it could not renew
        CapacityHolding holding = new CapacityHolding(400, "hold", 150, 200, false, 41, 3, 147, 201);

        // When
        BucketsEndpoint.Answer answer = new CapacityEndpoint(null, () -> holding).answer();

        // Then
        assertThat(answer.status()).isEqualTo(200);
        assertThat(Json.read(new String(Json.write(answer.body()), java.nio.charset.StandardCharsets.UTF_8)))
                .containsEntry("capacity", 400.0).containsEntry("reason", "fixed")
                .containsEntry("instance", Map.of("holding", "hold", "rate", 150.0, "held", 200.0, "learning", false,
                        "renewals", 41, "failedRenewals", 3, "releasedLastSecond", 147, "mostInOneSecond", 201));
    }
}
