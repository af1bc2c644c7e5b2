package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Axes from 0 that end on a round tick, in round steps. */
class NiceScaleTest {

    @Test
    void shouldReachTheValueInAtMostSixRoundSteps() {
        assertThat(NiceScale.covering(374)).isEqualTo(new NiceScale(400, 100));
        assertThat(NiceScale.covering(115.5)).isEqualTo(new NiceScale(120, 20));
        assertThat(NiceScale.covering(78.1)).isEqualTo(new NiceScale(80, 20));
        assertThat(NiceScale.covering(52.8)).isEqualTo(new NiceScale(60, 10));
        assertThat(NiceScale.covering(100)).isEqualTo(new NiceScale(100, 20));
        assertThat(NiceScale.covering(2.6)).isEqualTo(new NiceScale(3, 0.5));
    }

    @Test
    void shouldGiveAnAxisToOneWhenThereIsNothingToShow() {
        assertThat(NiceScale.covering(0)).isEqualTo(new NiceScale(1, 0.2));
        assertThat(NiceScale.covering(Double.NaN)).isEqualTo(new NiceScale(1, 0.2));
    }

    @Test
    void shouldTickAtEveryStepFromZeroToTheMaximum() {
        assertThat(new NiceScale(120, 20).ticks()).containsExactly(0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0);
        assertThat(new NiceScale(35, 5).ticks()).containsExactly(0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0);
    }

    @Test
    void shouldKeepTheConfiguredScaleUnlessTheDataGoesAboveIt() {
        assertThat(NiceScale.steady(374, 50)).isEqualTo(new NiceScale(400, 100));
        assertThat(NiceScale.steady(374, 399)).isEqualTo(new NiceScale(400, 100));
        assertThat(NiceScale.steady(374, 420)).isEqualTo(new NiceScale(500, 100));
    }

    @Test
    void shouldStepTimeInOneTwoFiveTenOrMoreSeconds() {
        assertThat(NiceScale.seconds(8, 10)).isEqualTo(new NiceScale(8, 1));
        assertThat(NiceScale.seconds(12.5, 10)).isEqualTo(new NiceScale(14, 2));
        assertThat(NiceScale.seconds(33, 10)).isEqualTo(new NiceScale(35, 5));
        assertThat(NiceScale.seconds(47.2, 10)).isEqualTo(new NiceScale(50, 5));
        assertThat(NiceScale.seconds(95, 10)).isEqualTo(new NiceScale(100, 10));
        assertThat(NiceScale.seconds(250, 10)).isEqualTo(new NiceScale(270, 30));
    }
}
