package dev.shaper.internals.capacity.adaptive;

import static dev.shaper.internals.capacity.adaptive.FeedbackScript.START_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import org.junit.jupiter.api.Test;

/**
 * The loop's core when the instances agree on one decision: it adopts the decision in force and goes on from it, and
 * takes on a warm-up another instance started; time advanced by the test.
 */
class AdaptiveCapacityAdoptionTest {

    private static final double MAX = 1_000;
    private static final double MIN = 100;
    private static final long ADJUST_MS = 1_000;
    private static final long WARMUP_MS = 30_000;

    private static AdaptiveSettings settings(long warmUpMs) {
        return new AdaptiveSettings(new CapacityBounds(MIN, MAX), 50, 0.01, ADJUST_MS, 5_000, warmUpMs,
                ControllerKind.AIMD);
    }

    @Test
    void shouldGoOnFromTheAdoptedCapacityWhenAnotherInstancesDecisionIsInForce() {
        // Given: a loop that decided a healthy maximum on its own feedback
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(WARMUP_MS), START_MS, false);
        FeedbackScript script = new FeedbackScript(loop, ADJUST_MS);
        script.interval(500, 0, 20);

        // When: it adopts another instance's cut to 600/s
        CapacityDecision adopted = loop.adopt(600, Reason.LATENCY, 0, script.nowMs());

        // Then: it applies 600/s for the other's reason, keeps the feedback it saw itself, and its next cut is from 600
        assertThat(adopted.capacity()).isEqualTo(600);
        assertThat(adopted.reason()).isEqualTo(Reason.LATENCY);
        assertThat(adopted.latencyP99Ms()).isEqualTo(20);
        assertThat(loop.allowed().capacity()).isEqualTo(600);
        assertThat(script.interval(500, 0, 200).capacity()).isCloseTo(420, within(1e-9));
    }

    @Test
    void shouldClampAnAdoptedCapacityWhenItIsOutsideTheBounds() {
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(WARMUP_MS), START_MS, false);

        assertThat(loop.adopt(5_000, Reason.HEALTHY, 0, START_MS).capacity()).isEqualTo(MAX);
        assertThat(loop.adopt(1, Reason.LATENCY, 0, START_MS).capacity()).isEqualTo(MIN);
    }

    @Test
    void shouldTakeOnANewerWarmUpAndIgnoreAnOlderOneWhenAdopting() {
        // Given: a loop at the maximum that warmed up 10 s ago
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(WARMUP_MS), START_MS, false);
        assertThat(loop.startWarmUp(START_MS, START_MS)).isTrue();
        long now = START_MS + 10_000;

        // When: the decision in force names an older warm-up
        CapacityDecision older = loop.adopt(MAX, Reason.HEALTHY, START_MS - 5_000, now);

        // Then: its own stands: a third of the way up
        assertThat(older.capacity()).isCloseTo(MIN + (MAX - MIN) / 3, within(1e-9));
        assertThat(older.reason()).isEqualTo(Reason.WARMING_UP);

        // And when: it names a newer one, started now
        CapacityDecision newer = loop.adopt(MAX, Reason.HEALTHY, now, now);

        // Then: the capacity is back at the minimum, and the warm-up is the newer one
        assertThat(newer.capacity()).isEqualTo(MIN);
        assertThat(loop.warmUpStartMs()).isEqualTo(now);
    }

    @Test
    void shouldNotWarmUpWhenTheWarmUpIsOff() {
        // Given: shaper.capacity.warmup.ms=0
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(0), START_MS, false);

        // When: a restore, or another instance, asks for a warm-up
        boolean started = loop.startWarmUp(START_MS + 1_000, START_MS + 1_000);
        CapacityDecision adopted = loop.adopt(MAX, Reason.HEALTHY, START_MS + 1_000, START_MS + 1_000);

        // Then: none starts; the capacity stays at the maximum
        assertThat(started).isFalse();
        assertThat(adopted.capacity()).isEqualTo(MAX);
        assertThat(loop.warmUpStartMs()).isZero();
    }
}
