package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PoolHistoryTest {

    private final PoolHistory history = new PoolHistory();

    @Test
    void shouldGiveTheLowestPoolFromTheStampUntilNow() {
        // Given: 100 from 1,000 ms, 50 from 2,000 ms, 200 from 3,000 ms
        history.changed(1_000, 100);
        history.changed(2_000, 50);
        history.changed(3_000, 200);

        // Then: a release stamped after the last change gets the pool now; one stamped before it, the lowest since
        assertThat(history.lowestSince(3_500, 200)).isEqualTo(200);
        assertThat(history.lowestSince(3_000, 200)).isEqualTo(200);
        assertThat(history.lowestSince(2_999, 200)).isEqualTo(50);
        assertThat(history.lowestSince(1_500, 200)).isEqualTo(50);
    }

    @Test
    void shouldHoldAReleaseStampedBeforeARiseToThePoolBeforeIt() {
        // Given: 100 from 1,000 ms, raised to 150 at 1,400 ms
        history.changed(1_000, 100);
        history.changed(1_400, 150);

        // Then: a release stamped at 1,390 ms is held to 100; one at 1,400 ms to 150
        assertThat(history.lowestSince(1_390, 150)).isEqualTo(100);
        assertThat(history.lowestSince(1_400, 150)).isEqualTo(150);
    }

    @Test
    void shouldForgetChangesOlderThanItKeepsButTheOneStillInEffect() {
        // Given: 10 from 0 ms, 100 from 1,000 ms, 200 from 1,000 ms + KEPT_MS + 1
        history.changed(0, 10);
        history.changed(1_000, 100);
        history.changed(1_000 + PoolHistory.KEPT_MS + 1, 200);

        // Then: the 10 is forgotten; a stamp older than all that is kept gets the lowest kept
        assertThat(history.lowestSince(0, 200)).isEqualTo(100);
        assertThat(history.lowestSince(-5_000, 200)).isEqualTo(100);
    }

    @Test
    void shouldTakeTheCurrentPoolWhenNothingChangedYet() {
        assertThat(history.lowestSince(1_000, 75)).isEqualTo(75);
    }
}
