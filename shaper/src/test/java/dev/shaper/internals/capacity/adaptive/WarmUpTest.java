package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import org.junit.jupiter.api.Test;

/** The warm-up's ceiling on a clock the test sets: 100/s to 1,000/s over 30 s. */
class WarmUpTest {

    /** A pinned start: 2025-11-24T16:00:00Z. */
    private static final long START_MS = 1_764_000_000_000L;

    private final CapacityBounds bounds = new CapacityBounds(100, 1_000);
    private final WarmUp warmUp = new WarmUp(bounds, START_MS, 30_000);

    @Test
    void shouldRiseInAStraightLineFromTheMinimumToTheMaximumWhenTimePasses() {
        assertThat(warmUp.ceiling(START_MS)).isEqualTo(100);
        assertThat(warmUp.ceiling(START_MS + 10_000)).isEqualTo(400);
        assertThat(warmUp.ceiling(START_MS + 30_000)).isEqualTo(1_000);
        assertThat(warmUp.ceiling(START_MS + 90_000)).isEqualTo(1_000);
        assertThat(warmUp.isOver(START_MS + 29_999)).isFalse();
        assertThat(warmUp.isOver(START_MS + 30_000)).isTrue();
    }

    @Test
    void shouldHoldADecisionAtTheCeilingWhenTheControllerAllowsMore() {
        CapacityDecision allowed = new CapacityDecision(900, Reason.HEALTHY, 10, 0);

        CapacityDecision limited = warmUp.limit(allowed, START_MS + 10_000);

        assertThat(limited).isEqualTo(new CapacityDecision(400, Reason.WARMING_UP, 10, 0));
    }

    @Test
    void shouldLeaveADecisionAloneWhenItIsUnderTheCeiling() {
        CapacityDecision cut = new CapacityDecision(280, Reason.LATENCY, 120, 0);

        assertThat(warmUp.limit(cut, START_MS + 10_000)).isSameAs(cut);
    }

    @Test
    void shouldAllowTheMaximumFromTheStartWhenThereIsNoWarmUp() {
        assertThat(WarmUp.none(bounds).ceiling(START_MS)).isEqualTo(1_000);
        assertThat(new WarmUp(bounds, START_MS, 0).ceiling(START_MS)).isEqualTo(1_000);
    }
}
