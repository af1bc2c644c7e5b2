package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Releases counted in whole seconds from the producer's start. */
class ReleaseHistogramTest {

    /** On a tenth of a second: the seconds counted start at the start's tenth. */
    private static final long START_MS = 1_764_000_000_200L;

    @Test
    void shouldCountEachReleaseInTheSecondItFellIn() {
        ReleaseHistogram histogram = new ReleaseHistogram();
        histogram.add(START_MS);            // 0 s
        histogram.add(START_MS + 999);      // 0.999 s
        histogram.add(START_MS + 1_000);    // 1 s
        histogram.add(START_MS + 2_550);    // 2.55 s

        assertThat(histogram.perSecond(START_MS, 4)).containsExactly(2, 1, 1, 0);
    }

    @Test
    void shouldLeaveOutReleasesBeforeTheStartAndAfterTheLastSecond() {
        ReleaseHistogram histogram = new ReleaseHistogram();
        histogram.add(START_MS - 100);
        histogram.add(START_MS + 500);
        histogram.add(START_MS + 3_000);

        assertThat(histogram.perSecond(START_MS, 2)).containsExactly(1, 0);
        assertThat(histogram.perSecond(START_MS, 0)).isEmpty();
    }
}
