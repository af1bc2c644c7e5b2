package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SlidingRateTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final SlidingRate rate = new SlidingRate(now::get);

    @Test
    void shouldAverageTheLastTenCompleteSecondsAndLeaveOutTheCurrentOne() {
        // Given: 20 events in each of 12 seconds
        for (int s = 0; s < 12; s++) {
            rate.add(now.get() + s * 1000L + 500, 20);
        }
        // When: read during the twelfth second
        now.addAndGet(11_000 + 700);
        // Then: seconds 1..10 count (10 x 20 / 10 s), second 0 has left the window and second 11 is incomplete
        assertThat(rate.perSecond()).isEqualTo(20.0);
    }

    @Test
    void shouldReuseABucketForANewSecondWithoutItsOldCount() {
        rate.add(now.get(), 1_000);
        // The bucket of this second comes round again 11 seconds later
        rate.add(now.get() + 11_000, 5);
        now.addAndGet(12_000);
        assertThat(rate.perSecond()).isEqualTo(0.5);
    }

    @Test
    void shouldIgnoreEventsOlderThanTheBucketTheyWouldOverwrite() {
        rate.add(now.get() + 11_000, 5);
        rate.add(now.get(), 1_000); // late: the bucket already counts a newer second
        now.addAndGet(12_000);
        assertThat(rate.perSecond()).isEqualTo(0.5);
    }
}
