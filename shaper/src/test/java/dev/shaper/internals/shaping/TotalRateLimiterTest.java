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

    @Test
    void shouldMakeUpAStallAtTwiceTheRateInsteadOfInOneBurst() {
        // Given: 1,000/s (1 ms a unit), drained every 20 ms for a second
        TotalRateLimiter total = new TotalRateLimiter(1_000);
        long now = 1_000 * MS;
        int released = drain(total, now, 20 * MS);
        for (int tick = 0; tick < 50; tick++) {
            now += 20 * MS;
            released += drain(total, now, 20 * MS);
        }
        assertThat(released).isBetween(1_020, 1_022); // the first step, then 1 s

        // When: the next drain comes 200 ms late (a stall), then every 20 ms again
        now += 200 * MS;
        int afterStall = drain(total, now, 20 * MS);

        // Then: the late drain releases one step at twice the rate, not the 200 ms it missed
        assertThat(afterStall).isBetween(40, 42);
        // And: the missed time is made up within 200 ms at twice the rate (the ceiling's window, which the caller
        // asks first, keeps any second within the rate + 1), so nothing is lost
        int made = afterStall;
        for (int tick = 0; tick < 200; tick++) {
            now += 20 * MS;
            int drained = drain(total, now, 20 * MS);
            assertThat(drained).isLessThanOrEqualTo(42);
            made += drained;
        }
        assertThat(made).isBetween(4_198, 4_202); // the 4,200 ms since the last drain before the stall, at 1/ms
    }

    private static int drain(TotalRateLimiter total, long now, long step) {
        int released = 0;
        while (total.tryRelease(now, step, 1)) {
            released++;
        }
        return released;
    }
}
