package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.RejectReason;
import org.junit.jupiter.api.Test;

class LeakyBucketTest {

    private static final long MS = 1_000_000L;
    private static final long T0 = 1_000_000 * MS;

    @Test
    void shouldPassAFreshKeyAtOnceAndScheduleItsNextSlot() {
        ShapingRule rule = new ShapingRule(4, 10, 1_000);
        Arrival a = LeakyBucket.arrive(KeyState.ABSENT, rule, T0, 1, true);
        assertThat(a).isInstanceOf(Arrival.Pass.class);
        assertThat(((Arrival.Pass) a).state().tatNanos()).isEqualTo(T0 + 250 * MS);
    }

    @Test
    void shouldQueueBehindTheScheduleWhenTheKeyIsAhead() {
        ShapingRule rule = new ShapingRule(4, 10, 1_000);
        KeyState state = new KeyState(T0 + 250 * MS, 0, 0, 0);
        Arrival a = LeakyBucket.arrive(state, rule, T0, 2, true);
        assertThat(a).isEqualTo(new Arrival.Enqueue(T0 + 250 * MS, new KeyState(T0 + 750 * MS, 1, 2, 0)));
    }

    @Test
    void shouldQueueWhenTheTotalRateHoldsTheRecordBack() {
        ShapingRule rule = new ShapingRule(4, 10, 1_000);
        Arrival a = LeakyBucket.arrive(KeyState.ABSENT, rule, T0, 1, false);
        assertThat(a).isEqualTo(new Arrival.Enqueue(T0, new KeyState(T0 + 250 * MS, 1, 1, 0)));
    }

    @Test
    void shouldQueueARecordThatItsKeysReleaseScheduleHoldsBackThoughItsDueHasPassed() {
        ShapingRule rule = new ShapingRule(4, 10, 1_000);
        // The queue just emptied: its last record left late, at T0 - 50 ms, so the release side's next slot is
        // T0 + 200 ms while the dues ran out long ago. Passing now would put two records 50 ms apart.
        KeyState state = new KeyState(T0 - 100 * MS, 0, 0, 0, T0 + 200 * MS);
        Arrival a = LeakyBucket.arrive(state, rule, T0, 1, true);
        assertThat(a).isEqualTo(new Arrival.Enqueue(T0, new KeyState(T0 + 250 * MS, 1, 1, 0, T0 + 200 * MS)));
        assertThat(LeakyBucket.release(((Arrival.Enqueue) a).state(), rule, T0, T0, 0, 1)).isNull();
        assertThat(LeakyBucket.release(((Arrival.Enqueue) a).state(), rule, T0 + 200 * MS, T0, 0, 1)).isNotNull();
    }

    @Test
    void shouldNeverOvertakeQueuedRecordsOfTheSameKey() {
        ShapingRule rule = new ShapingRule(4, 10, 1_000);
        // due in the past (the total cap held it back), yet one record is still queued
        KeyState state = new KeyState(T0 - 5 * MS, 1, 1, 10);
        assertThat(LeakyBucket.arrive(state, rule, T0, 1, true)).isInstanceOf(Arrival.Enqueue.class);
    }

    @Test
    void shouldLetRecordsOfTheSameMillisecondRunOneMillisecondAhead() {
        ShapingRule rule = new ShapingRule(2_000, 10, 1_000); // 0.5 ms apart
        KeyState state = KeyState.ABSENT;
        int passed = 0;
        for (int i = 0; i < 5; i++) {
            Arrival a = LeakyBucket.arrive(state, rule, T0, 1, true);
            if (a instanceof Arrival.Pass p) {
                passed++;
                state = p.state();
            } else {
                break;
            }
        }
        assertThat(passed).isEqualTo(3); // due at 0, 0.5 and 1.0 ms
    }

    @Test
    void shouldRejectWhenTheQueueIsFullWithTheTimeUntilTheHeadLeaves() {
        ShapingRule rule = new ShapingRule(10, 2, 60_000);
        // two queued records, due at T0 + 100 and T0 + 200 ms: tat = T0 + 300 ms
        KeyState state = new KeyState(T0 + 300 * MS, 2, 2, 20);
        Arrival a = LeakyBucket.arrive(state, rule, T0 + 30 * MS, 1, true);
        assertThat(a).isInstanceOfSatisfying(Arrival.Reject.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_FULL);
            assertThat(r.retryAfterMs()).isEqualTo(70);
        });
    }

    @Test
    void shouldRejectWhenTheWaitExceedsTheDelayBoundWithTheExcessRoundedUp() {
        ShapingRule rule = new ShapingRule(10, 100, 500);
        KeyState state = new KeyState(T0 + 500 * MS + 1, 5, 5, 50);
        Arrival a = LeakyBucket.arrive(state, rule, T0, 1, true);
        assertThat(a).isInstanceOfSatisfying(Arrival.Reject.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.DELAY_EXCEEDED);
            assertThat(r.retryAfterMs()).isEqualTo(1);
        });
        // exactly at the bound is still fine
        KeyState atBound = new KeyState(T0 + 500 * MS, 5, 5, 50);
        assertThat(LeakyBucket.arrive(atBound, rule, T0, 1, true)).isInstanceOf(Arrival.Enqueue.class);
    }

    @Test
    void shouldNeverQueueWhenTheQueueBoundIsZero() {
        ShapingRule rule = new ShapingRule(1, 0, 60_000);
        KeyState state = new KeyState(T0 + 1_000 * MS, 0, 0, 0);
        assertThat(LeakyBucket.arrive(state, rule, T0, 1, true))
                .isInstanceOfSatisfying(Arrival.Reject.class, r -> {
                    assertThat(r.reason()).isEqualTo(RejectReason.QUEUE_FULL);
                    assertThat(r.retryAfterMs()).isEqualTo(1_000);
                });
    }

    @Test
    void shouldSaturateInsteadOfOverflowingForHugeCostsAtTinyRates() {
        ShapingRule rule = new ShapingRule(1e-9, 10, 60_000);
        Arrival a = LeakyBucket.arrive(KeyState.ABSENT, rule, T0, 1_000_000, true);
        assertThat(((Arrival.Pass) a).state().tatNanos()).isGreaterThan(T0);
        Arrival next = LeakyBucket.arrive(((Arrival.Pass) a).state(), rule, T0, 1, true);
        assertThat(next).isInstanceOfSatisfying(Arrival.Reject.class,
                r -> assertThat(r.reason()).isEqualTo(RejectReason.DELAY_EXCEEDED));
    }

    @Test
    void shouldRefuseRulesThatMakeNoSense() {
        assertThatThrownBy(() -> new ShapingRule(0, 1, 1)).hasMessageContaining("rate");
        assertThatThrownBy(() -> new ShapingRule(Double.NaN, 1, 1)).hasMessageContaining("rate");
        assertThatThrownBy(() -> new ShapingRule(1, -1, 1)).hasMessageContaining("maxQueue");
        assertThatThrownBy(() -> new ShapingRule(1, 1, -1)).hasMessageContaining("maxDelayMs");
    }

    @Test
    void shouldSpaceFractionalRatesWithoutDrift() {
        assertThat(new ShapingRule(3, 1, 1).intervalNanos(3)).isEqualTo(1_000_000_000L);
        assertThat(new ShapingRule(0.5, 1, 1).intervalNanos(1)).isEqualTo(2_000_000_000L);
    }

    @Test
    void shouldBoundTheWaitBehindTheTotalRateByTheKeysMaxDelay() {
        ShapingRule rule = new ShapingRule(1_000, 10, 1_000);
        // Held back by the total rate, which needs 900 ms (allowed) or 1,500 ms (500 ms too long) before it
        assertThat(LeakyBucket.arrive(KeyState.ABSENT, rule, T0, 1, false, 900 * MS))
                .isInstanceOf(Arrival.Enqueue.class);
        Arrival tooLong = LeakyBucket.arrive(KeyState.ABSENT, rule, T0, 1, false, 1_500 * MS);
        assertThat(tooLong).isInstanceOf(Arrival.Reject.class);
        Arrival.Reject reject = (Arrival.Reject) tooLong;
        assertThat(reject.reason()).isEqualTo(RejectReason.DELAY_EXCEEDED);
        assertThat(reject.retryAfterMs()).isEqualTo(500);
        assertThat(reject.detail()).contains("behind the total rate's backlog");
    }

    @Test
    void shouldLeaveTheReleaseScheduleAloneWhenAQueuedRecordExpires() {
        KeyState state = new KeyState(T0 + 500 * MS, 2, 3, 40, T0 + 100 * MS);
        assertThat(LeakyBucket.expire(state, 2)).isEqualTo(new KeyState(T0 + 500 * MS, 1, 1, 40, T0 + 100 * MS));
    }

    @Test
    void shouldKeepTheReleaseScheduleWhenATickIsLateByLessThanWhatAKeyMakesUpAtOnce() {
        // Given: 50/s (20 ms apart; made up at once: 9 ms), a record on schedule at T0, released 6 ms late
        ShapingRule rule = new ShapingRule(50, 100, 60_000);
        KeyState state = new KeyState(T0 + 100 * MS, 3, 3, 0, T0);

        // When
        KeyState after = LeakyBucket.release(state, rule, T0 + 6 * MS, T0, 10 * MS, 1);

        // Then: the next release stays on the schedule, not 20 ms after the late one: no time lost
        assertThat(after.releaseTatNanos()).isEqualTo(T0 + 20 * MS);
    }

    @Test
    void shouldMakeUpALongerStallAtTheCatchUpSpeedWithoutABurst() {
        // Given: 50/s, the key's schedule and its due 150 ms behind (a stall)
        ShapingRule rule = new ShapingRule(50, 100, 60_000);
        KeyState state = new KeyState(T0 + 500 * MS, 20, 20, 0, T0 - 150 * MS);

        // When
        KeyState after = LeakyBucket.release(state, rule, T0, T0 - 150 * MS, 10 * MS, 1);

        // Then: the schedule restarts 9 ms behind now (what a key makes up at once) and moves 1/51 s (one record a second above the rate)
        assertThat(after.releaseTatNanos()).isEqualTo(T0 - 9 * MS + ReleasePace.catchUpIntervalNanos(rule, 1));
        // And: the next one waits for that slot less the tolerance (10 ms): one leaves in this tick, the next at
        // T0 + 0.6 ms, then every 19.6 ms until the key is back on its dues
        assertThat(LeakyBucket.release(after, rule, T0, T0 - 130 * MS, 10 * MS, 1)).isNull();
        assertThat(LeakyBucket.release(after, rule, T0 + MS, T0 - 130 * MS, 10 * MS, 1)).isNotNull();
    }

    @Test
    void shouldMakeUpAtOnceTheLatenessTheTicksRoutinelyShow() {
        // Given: ticks routinely 30 ms late, and a key 30 ms behind
        ShapingRule rule = new ShapingRule(50, 100, 60_000);
        KeyState state = new KeyState(T0 + 500 * MS, 20, 20, 0, T0 - 30 * MS);

        // When
        KeyState after = LeakyBucket.release(state, rule, T0, T0 - 30 * MS, 10 * MS, 30 * MS, 200 * MS, 1);

        // Then: the schedule keeps its place (30 ms behind), so the owed records leave in this tick
        assertThat(after.releaseTatNanos()).isEqualTo(T0 - 30 * MS + ReleasePace.catchUpIntervalNanos(rule, 1));
    }
}
