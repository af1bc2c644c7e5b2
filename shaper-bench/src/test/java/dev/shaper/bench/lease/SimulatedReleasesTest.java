package dev.shaper.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SimulatedReleasesTest {

    @Test
    void shouldCountWhatWasReleasedInTheLastSecondOnly() {
        // Given: 100/s from 0 ms, 20/s from 1,500 ms
        SimulatedReleases window = new SimulatedReleases();
        window.releaseAt(0, 100);
        window.releaseAt(1_500, 20);

        // Then: at 1,500 ms the last second was all at 100/s; at 2,000 ms half at 100/s, half at 20/s
        assertThat(window.lastSecond(1_500)).isCloseTo(100, within(1e-9));
        assertThat(window.lastSecond(2_000)).isCloseTo(60, within(1e-9));
        assertThat(window.lastSecond(3_000)).isCloseTo(20, within(1e-9));
    }

    @Test
    void shouldCountNothingBeforeTheFirstRelease() {
        SimulatedReleases window = new SimulatedReleases();
        assertThat(window.lastSecond(5_000)).isZero();

        window.releaseAt(5_000, 40);
        assertThat(window.lastSecond(5_250)).isCloseTo(10, within(1e-9));
    }
}
