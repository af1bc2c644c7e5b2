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
    void shouldKeepTheLeasedGrantUntilTheNextRenewalWhenTheTotalFalls() {
        // Given: a pool on a lease of 300/s
        CapacityPool pool = new CapacityPool(400, 8);
        pool.join(0);
        pool.useLease(300);

        // When: the capacity falls, and the lease is not renewed yet
        pool.setTotalRate(100);

        // Then: the grant stands (the lease script shares the new total at the next renewal), the static shares do not
        assertThat(pool.pooled()).isEqualTo(300);
        pool.holdLease();
        assertThat(pool.pooled()).isEqualTo(12.5);
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
