package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TotalRateLimiterTest {

    private static final long MS = 1_000_000L;

    @Test
    void shouldReleaseOneStepWorthPerDrain() {
        TotalRateLimiter total = new TotalRateLimiter(100); // 10 ms per unit
        int released = 0;
        while (total.tryRelease(1_000 * MS, 100 * MS, 1)) {
            released++;
        }
        assertThat(released).isEqualTo(11); // the step's 10, plus the one at its end
        released = 0;
        while (total.tryRelease(1_100 * MS, 100 * MS, 1)) {
            released++;
        }
        assertThat(released).isEqualTo(10);
    }

    @Test
    void shouldCountRecordsThatPassedAtOnce() {
        TotalRateLimiter total = new TotalRateLimiter(10);
        assertThat(total.canPass(0)).isTrue();
        total.onPass(0, 1);
        assertThat(total.canPass(50 * MS)).isFalse();
        assertThat(total.canPass(99 * MS)).isTrue(); // within the millisecond tolerance
    }

    @Test
    void shouldNeverRefuseWithoutACap() {
        TotalRateLimiter total = new TotalRateLimiter(0);
        assertThat(total.isUnlimited()).isTrue();
        for (int i = 0; i < 1_000; i++) {
            assertThat(total.tryRelease(0, 0, 1_000)).isTrue();
        }
    }

    @Test
    void shouldEstimateTheWaitBehindWhatIsQueuedAndWhatWasSpent() {
        assertThat(new TotalRateLimiter(0).backlogNanos(1_000 * MS, 1_000)).isZero(); // no cap, no wait
        TotalRateLimiter total = new TotalRateLimiter(100); // 10 ms per unit
        assertThat(total.backlogNanos(1_000 * MS, 5)).isEqualTo(50 * MS);
        total.onPass(1_000 * MS, 3); // 30 ms of the cap spent ahead of now
        assertThat(total.backlogNanos(1_000 * MS, 5)).isEqualTo(80 * MS);
        assertThat(total.backlogNanos(1_040 * MS, 0)).isZero();
    }
}
