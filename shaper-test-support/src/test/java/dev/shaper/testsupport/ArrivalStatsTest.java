package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ArrivalStatsTest {

    private static final long MS = 1_000_000L;

    @Test
    void shouldFitTheRateWhenArrivalsAreEvenlySpaced() {
        // Given: one arrival every 10 ms
        long[] times = new long[500];
        for (int i = 0; i < times.length; i++) {
            times[i] = 123_456_789L + i * 10 * MS;
        }

        // When
        double rate = ArrivalStats.fittedRatePerSecond(times);

        // Then
        assertThat(rate).isCloseTo(100.0, within(1e-9));
    }

    @Test
    void shouldFitTheAverageRateWhenArrivalsComeInBatches() {
        // Given: ten arrivals at once every 100 ms
        long[] times = new long[1000];
        for (int i = 0; i < times.length; i++) {
            times[i] = (i / 10) * 100 * MS;
        }

        // When
        double rate = ArrivalStats.fittedRatePerSecond(times);

        // Then
        assertThat(rate).isCloseTo(100.0, within(0.5));
    }

    @Test
    void shouldGiveNoRateWhenThereAreTooFewOrSimultaneousArrivals() {
        assertThat(ArrivalStats.fittedRatePerSecond(new long[] {5})).isNaN();
        assertThat(ArrivalStats.fittedRatePerSecond(new long[] {5, 5, 5})).isInfinite();
    }

    @Test
    void shouldCountTheRateInTheDensestSecondWhenArrivalsAreEvenlySpaced() {
        // Given: 0, 10, ..., 2000 ms; the window [t, t + 1 s) holds 100 of them
        long[] times = new long[201];
        for (int i = 0; i < times.length; i++) {
            times[i] = i * 10 * MS;
        }

        // When
        int max = ArrivalStats.maxInWindow(times, 1000 * MS);

        // Then
        assertThat(max).isEqualTo(100);
    }

    @Test
    void shouldFindTheDensestWindowWhereverItStartsWhenArrivalsAreUneven() {
        // Given: 5 arrivals at 0, 3 at 900 ms, 4 at 1500 ms (unsorted on purpose)
        long[] times = {1500 * MS, 0, 0, 900 * MS, 0, 1500 * MS, 0, 900 * MS, 0, 1500 * MS, 900 * MS, 1500 * MS};

        // When
        int max = ArrivalStats.maxInWindow(times, 1000 * MS);

        // Then: [0, 1 s) holds 8, [900 ms, 1.9 s) holds 7
        assertThat(max).isEqualTo(8);
    }

    @Test
    void shouldCountNothingWhenThereAreNoArrivals() {
        assertThat(ArrivalStats.maxInWindow(new long[0], 1000 * MS)).isZero();
    }

    @Test
    void shouldLeaveTheStallsOutOfTheRunningRate() {
        // Given: 50/s (every 20 ms) for 1 s, a 500 ms stall, then 50/s again for 1 s
        long[] times = new long[101];
        for (int i = 0; i < times.length; i++) {
            times[i] = (i * 20L + (i > 50 ? 480 : 0)) * MS;
        }

        // Then: the 480 ms beyond a 40 ms gap are a stall, the rest runs at 50/s
        assertThat(ArrivalStats.stalledNanos(times, 40 * MS)).isEqualTo(460 * MS);
        assertThat(ArrivalStats.runningRate(times, 50)).isCloseTo(100 / 2.02, org.assertj.core.api.Assertions.within(0.01));
    }

    @Test
    void shouldShowAPaceBelowTheRateThatNoStallExplains() {
        // Given: a key at 50/s released every 25 ms (40/s)
        long[] times = new long[101];
        for (int i = 0; i < times.length; i++) {
            times[i] = i * 25L * MS;
        }

        // Then
        assertThat(ArrivalStats.runningRate(times, 50)).isCloseTo(40, org.assertj.core.api.Assertions.within(0.01));
    }
}
