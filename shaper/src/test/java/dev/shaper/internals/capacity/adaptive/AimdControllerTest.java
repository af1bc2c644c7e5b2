package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import org.junit.jupiter.api.Test;

/** AIMD on its own, step by step, and inside the loop ({@link ClosedLoopContract}). */
class AimdControllerTest extends ClosedLoopContract {

    private final AimdController aimd = AimdController.withDefaults(settings());

    @Override
    ControllerKind kind() {
        return ControllerKind.AIMD;
    }

    private static FeedbackSignal signal(long writes, long errors, double p99Ms) {
        return FeedbackSignal.of(2, writes, errors, p99Ms);
    }

    @Test
    void shouldAddATwentiethOfTheMaximumPerSecondWhenHealthy() {
        // Given/When: healthy feedback at 500/s, decisions every second
        CapacityDecision decision = aimd.decide(500, signal(500, 0, 20));

        // Then: 50/s more
        assertThat(decision.capacity()).isEqualTo(550);
        assertThat(decision.reason()).isEqualTo(Reason.HEALTHY);
    }

    @Test
    void shouldScaleTheIncreaseToTheDecisionIntervalWhenDecisionsAreMoreFrequent() {
        // Given: decisions every 250 ms
        AdaptiveSettings quarter = new AdaptiveSettings(settings().bounds(), TARGET_MS, 0.01, 250, TIMEOUT_MS,
                WARMUP_MS, ControllerKind.AIMD);

        // When: a healthy decision
        CapacityDecision decision = AimdController.withDefaults(quarter).decide(500, signal(500, 0, 20));

        // Then: a quarter of 50/s, so still 50/s per second
        assertThat(decision.capacity()).isEqualTo(512.5);
    }

    @Test
    void shouldCut30PercentWhenTheP99IsAboveTheTargetHoweverFar() {
        assertThat(aimd.decide(500, signal(500, 0, TARGET_MS + 0.1)).capacity()).isCloseTo(350, within(1e-9));
        assertThat(aimd.decide(500, signal(500, 0, TARGET_MS * 10)).capacity()).isCloseTo(350, within(1e-9));
        // At the target is healthy: the bound is "above"
        assertThat(aimd.decide(500, signal(500, 0, TARGET_MS)).reason()).isEqualTo(Reason.HEALTHY);
    }

    @Test
    void shouldNameTheErrorsWhenBothErrorsAndLatencyAreAboveTheirBounds() {
        CapacityDecision decision = aimd.decide(500, signal(900, 100, TARGET_MS * 2));
        assertThat(decision.reason()).isEqualTo(Reason.ERRORS);
        assertThat(decision.capacity()).isCloseTo(350, within(1e-9));
        assertThat(decision.latencyP99Ms()).isEqualTo(TARGET_MS * 2);
        assertThat(decision.errorRatio()).isCloseTo(0.1, within(1e-12));
    }

    @Test
    void shouldStayWithinTheBoundsWhenAStepWouldLeaveThem() {
        assertThat(aimd.decide(980, signal(500, 0, 20)).capacity()).isEqualTo(MAX);
        assertThat(aimd.decide(120, signal(500, 0, TARGET_MS * 2)).capacity()).isEqualTo(MIN);
    }

    @Test
    void shouldCountNoLatencyAsHealthyWhenTheWritersWroteNothing() {
        // Given/When: the writers attempted nothing, so have no p99
        CapacityDecision decision = aimd.decide(500, FeedbackSignal.of(2, 0, 0, Double.NaN));

        // Then: nothing holds the capacity back
        assertThat(decision.reason()).isEqualTo(Reason.HEALTHY);
        assertThat(decision.capacity()).isEqualTo(550);
        assertThat(decision.latencyP99Ms()).isNaN();
    }

    @Test
    void shouldHoldAndSayNoFeedbackWhenTheSignalHasNoReports() {
        CapacityDecision decision = aimd.decide(432, FeedbackSignal.noFeedback());
        assertThat(decision.capacity()).isEqualTo(432);
        assertThat(decision.reason()).isEqualTo(Reason.NO_FEEDBACK);
        assertThat(decision.latencyP99Ms()).isNaN();
        assertThat(decision.errorRatio()).isNaN();
    }
}
