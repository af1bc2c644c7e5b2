package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import org.junit.jupiter.api.Test;

/** The gradient controller on its own, step by step, and inside the loop ({@link ClosedLoopContract}). */
class GradientControllerTest extends ClosedLoopContract {

    private final GradientController gradient = GradientController.withDefaults(settings());

    @Override
    ControllerKind kind() {
        return ControllerKind.GRADIENT;
    }

    private static FeedbackSignal signal(long writes, long errors, double p99Ms) {
        return FeedbackSignal.of(2, writes, errors, p99Ms);
    }

    @Test
    void shouldCutInProportionToTheExcessWhenTheP99IsAboveTheTarget() {
        // p99 twice the target: gradient 0.5, half way there: a cut of 25 %
        assertThat(gradient.decide(800, signal(500, 0, TARGET_MS * 2)).capacity()).isCloseTo(600, within(1e-9));
        // Far above: the gradient's floor, 0.4, a cut of 30 %, AIMD's
        assertThat(gradient.decide(800, signal(500, 0, TARGET_MS * 10)).capacity()).isCloseTo(560, within(1e-9));
        // Just above: the least cut, 12 %
        CapacityDecision slight = gradient.decide(800, signal(500, 0, TARGET_MS * 1.01));
        assertThat(slight.capacity()).isCloseTo(704, within(1e-9));
        assertThat(slight.reason()).isEqualTo(Reason.LATENCY);
    }

    @Test
    void shouldCutInProportionToTheErrorsWhenTheErrorRatioIsAboveItsBound() {
        // 2 % errors against a bound of 1 %: gradient 0.5, a cut of 25 %
        CapacityDecision decision = gradient.decide(800, signal(980, 20, 10));
        assertThat(decision.capacity()).isCloseTo(600, within(1e-9));
        assertThat(decision.reason()).isEqualTo(Reason.ERRORS);
    }

    @Test
    void shouldRiseAtMostTenPercentPerSecondWhenTheP99IsFarUnderTheTarget() {
        // p99 a fifth of the target: the gradient is capped at 1.2, half way there
        CapacityDecision decision = gradient.decide(800, signal(500, 0, TARGET_MS / 5));
        assertThat(decision.capacity()).isCloseTo(880, within(1e-9));
        assertThat(decision.reason()).isEqualTo(Reason.HEALTHY);
    }

    @Test
    void shouldRiseAtLeastLikeAimdWhenTheP99IsJustUnderTheTarget() {
        // p99 at 95 % of the target: the gradient alone would add 2.6 %; AIMD's 50/s is more
        assertThat(gradient.decide(300, signal(500, 0, TARGET_MS * 0.95)).capacity()).isCloseTo(350, within(1e-9));
        // From 800/s, 2.6 % (21/s) is still less than 50/s
        assertThat(gradient.decide(800, signal(500, 0, TARGET_MS * 0.95)).capacity()).isCloseTo(850, within(1e-9));
    }

    @Test
    void shouldRiseByTheCappedGradientWhenTheWritersWroteNothing() {
        CapacityDecision decision = gradient.decide(800, FeedbackSignal.of(1, 0, 0, Double.NaN));
        assertThat(decision.capacity()).isCloseTo(880, within(1e-9));
        assertThat(decision.reason()).isEqualTo(Reason.HEALTHY);
    }

    @Test
    void shouldStayWithinTheBoundsWhenAStepWouldLeaveThem() {
        assertThat(gradient.decide(990, signal(500, 0, 1)).capacity()).isEqualTo(MAX);
        assertThat(gradient.decide(110, signal(500, 0, TARGET_MS * 4)).capacity()).isEqualTo(MIN);
    }

    @Test
    void shouldHoldAndSayNoFeedbackWhenTheSignalHasNoReports() {
        CapacityDecision decision = gradient.decide(432, FeedbackSignal.noFeedback());
        assertThat(decision.capacity()).isEqualTo(432);
        assertThat(decision.reason()).isEqualTo(Reason.NO_FEEDBACK);
    }
}
