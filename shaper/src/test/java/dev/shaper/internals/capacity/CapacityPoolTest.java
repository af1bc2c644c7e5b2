package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class CapacityPoolTest {

    /** 400/s over 8 partitions: 50/s per task. */
    private final CapacityPool pool = new CapacityPool(400, 8);

    private double inUse(List<CapacityPool.Member> members) {
        return members.stream().mapToDouble(CapacityPool.Member::rate).sum();
    }

    @Test
    void shouldPoolTheStaticSharesOfTheTasksItRunsAndSplitThemEvenlyWhenIdle() {
        CapacityPool.Member a = pool.join(0);
        CapacityPool.Member b = pool.join(1);
        assertThat(pool.pooled()).isEqualTo(100);
        assertThat(a.update(d(0))).isEqualTo(50);
        assertThat(b.update(d(0))).isEqualTo(50);
    }

    @Test
    void shouldGiveABusyTaskWhatAnIdleOneLeaves() {
        CapacityPool.Member busy = pool.join(2);
        CapacityPool.Member quiet = pool.join(3);
        // The quiet task's first tick gives it headroom (55), which the busy one cannot take from it at once
        assertThat(quiet.update(d(10))).isEqualTo(55);
        assertThat(busy.update(d(1_000))).isEqualTo(45);
        // From their next ticks on: the quiet one uses what it asks, the busy one gets the rest
        assertThat(quiet.update(d(10))).isEqualTo(10);
        assertThat(busy.update(d(1_000))).isEqualTo(90);
    }

    @Test
    void shouldShareMaxMinFairly() {
        CapacityPool.Member small = pool.join(4);
        CapacityPool.Member medium = pool.join(5);
        CapacityPool.Member large = pool.join(6); // 150 pooled
        small.update(d(10));
        medium.update(d(80));
        large.update(d(1_000));
        // Again, now that every demand is known: 10, then 70 each of the 140 left
        assertThat(small.update(d(10))).isEqualTo(10);
        assertThat(medium.update(d(80))).isCloseTo(70, within(1e-9));
        assertThat(large.update(d(1_000))).isCloseTo(70, within(1e-9));
    }

    @Test
    void shouldNeverHandOutMoreThanThePoolWhileSharesShift() {
        CapacityPool.Member a = pool.join(7);
        CapacityPool.Member b = pool.join(8);
        List<CapacityPool.Member> both = List.of(a, b);
        b.update(d(0));
        assertThat(a.update(d(1_000))).isEqualTo(50); // b holds its headroom until its next tick
        assertThat(b.update(d(0))).isZero();
        assertThat(a.update(d(1_000))).isEqualTo(100);

        // When: b wants as much; a still uses its 100 until its next tick
        assertThat(b.update(d(1_000))).isZero();
        assertThat(inUse(both)).isLessThanOrEqualTo(pool.pooled());
        assertThat(a.update(d(1_000))).isEqualTo(50);
        assertThat(b.update(d(1_000))).isEqualTo(50);
        assertThat(inUse(both)).isLessThanOrEqualTo(pool.pooled());
    }

    @Test
    void shouldFreeALeavingTasksShareForTheOthers() {
        CapacityPool.Member a = pool.join(9);
        CapacityPool.Member b = pool.join(10);
        a.update(d(1_000));
        b.update(d(1_000));
        b.leave();
        assertThat(pool.pooled()).isEqualTo(50);
        assertThat(a.update(d(1_000))).isEqualTo(50);
    }

    @Test
    void shouldServeWhatTasksAskAtPriorityZeroBeforeWhatAnyAsksAtPriorityOne() {
        // Given: 100/s pooled; an interactive task asks 70/s at priority 0, a backfill task 200/s at priority 1, and a
        // mixed task 20/s at priority 0 and 200/s at priority 1
        CapacityPool.Member interactive = pool.join(0);
        CapacityPool.Member backfill = pool.join(1);
        CapacityPool.Member mixed = pool.join(4);
        assertThat(pool.pooled()).isEqualTo(150);
        PriorityDemand interactiveDemand = PriorityDemand.of(new double[] {70});
        PriorityDemand backfillDemand = PriorityDemand.of(new double[] {0, 200});
        PriorityDemand mixedDemand = PriorityDemand.of(new double[] {20, 200});

        // When: each reports twice (the second round sees the others' rates in use settle)
        for (int round = 0; round < 3; round++) {
            interactive.update(interactiveDemand);
            backfill.update(backfillDemand);
            mixed.update(mixedDemand);
        }

        // Then: priority 0 gets its 90/s whole; the 60/s left is split evenly between the priority 1 demands
        assertThat(interactive.rate()).isCloseTo(70, within(1e-9));
        assertThat(mixed.rate()).isCloseTo(20 + 30, within(1e-9));
        assertThat(backfill.rate()).isCloseTo(30, within(1e-9));
        assertThat(pool.demandByPriority()).isEqualTo(PriorityDemand.of(new double[] {90, 400}));
        // And: what a task gives up goes to a priority the pool ran out at, not below it
        pool.depositSpare(10, 1);
        assertThat(pool.takeSpare(5, 1, 0)).isTrue();
        interactive.update(PriorityDemand.of(new double[] {200}));
        assertThat(pool.takeSpare(1, 1, 0)).isFalse();
        assertThat(pool.takeSpare(1, 0, 0)).isTrue();
    }

    @Test
    void shouldLetATaskHeldBackByItsPartTakeWhatTheInstanceIsBehindItsPool() {
        // Given: 100/s pooled (two tasks), with 5 units released at 0 ms: due, at the pool's rate, until 50 ms
        pool.join(0);
        pool.join(1);
        pool.released(0, 5);
        // Then: no more than the pool while the instance is on its pace, more once it fell behind
        assertThat(pool.takeSpare(1, 0, 40)).isFalse();
        assertThat(pool.takeSpare(1, 0, 60)).isTrue();
        // And: a long quiet stretch is not owed: only the last 100 ms count (10 units at 100/s)
        pool.released(2_000, 10);
        assertThat(pool.takeSpare(1, 0, 1_999)).isFalse();
        assertThat(pool.takeSpare(1, 0, 2_001)).isTrue();
    }

    @Test
    void shouldNotLetATaskTakeWhatTheInstanceIsBehindForASecondAfterThePoolFell() {
        // Given: two tasks on a lease of 200/s, which falls to 100/s at 1,000 ms
        long[] wallMs = {0};
        CapacityPool leased = new CapacityPool(400, 8, () -> wallMs[0]);
        leased.join(0);
        leased.join(1);
        leased.useLease(200);
        leased.released(0, 1);
        wallMs[0] = 1_000;
        leased.useLease(100);
        // Then: for a second the window's room goes to the tasks at their parts only, then the pace counts again
        assertThat(leased.takeSpare(1, 0, 1_500)).isFalse();
        leased.released(1_500, 1);
        assertThat(leased.takeSpare(1, 0, 2_100)).isTrue();
    }

    /** {@code unitsPerSecond} at the highest priority. */
    private static PriorityDemand d(double unitsPerSecond) {
        return PriorityDemand.ofHighest(unitsPerSecond);
    }
}
