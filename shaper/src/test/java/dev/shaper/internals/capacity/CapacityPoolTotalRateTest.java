package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The pool's total rate as the closed loop moves it: static shares, leases and the tasks' rates follow. */
class CapacityPoolTotalRateTest {

    @Test
    void shouldShrinkTheStaticSharesAndTheTasksRatesWhenTheTotalRateFalls() {
        // Given: 400/s over 8 partitions, two busy tasks here (50/s each)
        CapacityPool pool = new CapacityPool(400, 8);
        CapacityPool.Member a = pool.join(0);
        CapacityPool.Member b = pool.join(1);
        a.update(d(1_000));
        b.update(d(1_000));

        // When: the capacity falls to 200/s
        pool.setTotalRate(200);

        // Then: the static shares halve at once, and each task takes its smaller part at its next tick
        assertThat(pool.totalRate()).isEqualTo(200);
        assertThat(pool.staticShare()).isEqualTo(25);
        assertThat(pool.pooled()).isEqualTo(50);
        assertThat(a.update(d(1_000))).isLessThanOrEqualTo(25);
        assertThat(b.update(d(1_000))).isEqualTo(25);
        assertThat(a.update(d(1_000))).isEqualTo(25);
    }

    @Test
    void shouldLowerTheLeasedGrantAtOnceWhenTheTotalFallsAndKeepItUntilTheNextRenewalWhenItRises() {
        // Given: a pool on a lease of 300/s of 400/s
        CapacityPool pool = new CapacityPool(400, 8);
        pool.join(0);
        pool.useLease(300);

        // When: the capacity falls to a quarter, and the lease is not renewed yet
        pool.setTotalRate(100);

        // Then: the grant falls in proportion at once (the grants together stay within the new capacity without a
        // call to Redis); the static shares too
        assertThat(pool.pooled()).isEqualTo(75);
        pool.holdLease();
        assertThat(pool.pooled()).isEqualTo(12.5);

        // And: a rise waits for the next renewal, which shares the new total
        pool.useLease(75);
        pool.setTotalRate(400);
        assertThat(pool.pooled()).isEqualTo(75);
    }

    @Test
    void shouldRefuseATotalRateWhenItIsNotAFiniteNumberAboveZero() {
        CapacityPool pool = new CapacityPool(400, 8);

        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> pool.setTotalRate(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(pool.totalRate()).isEqualTo(400);
    }

    /** {@code unitsPerSecond} at the highest priority. */
    private static PriorityDemand d(double unitsPerSecond) {
        return PriorityDemand.ofHighest(unitsPerSecond);
    }
}
