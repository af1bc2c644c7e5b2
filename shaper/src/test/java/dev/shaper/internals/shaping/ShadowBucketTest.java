package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.RejectReason;
import org.junit.jupiter.api.Test;

/** The would-be bucket of a key in shadow decides as the enforced one would, from its schedule alone. */
class ShadowBucketTest {

    private static final long MS = 1_000_000L;
    /** 10/s, room for 3 waiting records. */
    private static final ShapingRule RULE = new ShapingRule(10, 3, 250).withShadow(true);

    @Test
    void shouldDecideEachArrivalAsTheEnforcedBucketWouldHave() {
        // Records arriving at once: the first passes, the next wait 100 and 200 ms, the fourth would wait 300 ms,
        // longer than max.delay.ms
        KeyState state = KeyState.ABSENT;
        Arrival first = ShadowBucket.arrive(state, RULE, 0, 1);
        assertThat(first).isInstanceOf(Arrival.Pass.class);
        state = ((Arrival.Pass) first).state();

        Arrival second = ShadowBucket.arrive(state, RULE, 0, 1);
        assertThat(((Arrival.Enqueue) second).dueNanos()).isEqualTo(100 * MS);
        state = ((Arrival.Enqueue) second).state();
        assertThat(state.queuedRecords()).isZero(); // nothing is queued for real

        Arrival third = ShadowBucket.arrive(state, RULE, 0, 1);
        assertThat(((Arrival.Enqueue) third).dueNanos()).isEqualTo(200 * MS);
        state = ((Arrival.Enqueue) third).state();

        Arrival fourth = ShadowBucket.arrive(state, RULE, 0, 1);
        assertThat(((Arrival.Reject) fourth).reason()).isEqualTo(RejectReason.DELAY_EXCEEDED);
    }

    @Test
    void shouldCountTheWouldBeQueueFromTheScheduleAndLetItDrainAtTheRate() {
        // Four records' worth of schedule ahead: the last due at 300 ms, so three would wait (at 100, 200, 300)
        KeyState fourAhead = new KeyState(400 * MS, 0, 0, 0);
        assertThat(ShadowBucket.wouldBeQueuedUnits(fourAhead, RULE, 0)).isEqualTo(3);
        assertThat(((Arrival.Reject) ShadowBucket.arrive(fourAhead, RULE, 0, 1)).reason())
                .isEqualTo(RejectReason.QUEUE_FULL);
        // 150 ms later, the ones due at 100 ms has left: two wait
        assertThat(ShadowBucket.wouldBeQueuedUnits(fourAhead, RULE, 150 * MS)).isEqualTo(2);
        // A record due within the arrival tolerance of now counts as gone
        assertThat(ShadowBucket.wouldBeQueuedUnits(fourAhead, RULE, 200 * MS - MS)).isEqualTo(1);
        assertThat(ShadowBucket.wouldBeQueuedUnits(fourAhead, RULE, 400 * MS)).isZero();
        assertThat(ShadowBucket.wouldBeQueuedUnits(KeyState.ABSENT, RULE, 0)).isZero();
        assertThat(ShadowBucket.wouldBeQueuedUnits(new KeyState(Long.MAX_VALUE, 0, 0, 0), RULE, 0))
                .isPositive();
    }

    @Test
    void shouldQueueARecordBehindWhatItsKeyStillHasWaitingWithoutSpacingIt() {
        KeyState waiting = new KeyState(500 * MS, 2, 2, 100);

        Arrival.Enqueue behind = ShadowBucket.behindQueue(waiting, 0, 1);
        assertThat(behind.dueNanos()).isEqualTo(500 * MS);
        Arrival.Enqueue next = ShadowBucket.behindQueue(behind.state(), 0, 1);
        assertThat(next.dueNanos()).isEqualTo(500 * MS + 1); // strictly after, not a whole interval
        assertThat(next.state().queuedRecords()).isEqualTo(4);
        // Late arrivals are due now
        assertThat(ShadowBucket.behindQueue(waiting, 900 * MS, 1).dueNanos()).isEqualTo(900 * MS);
    }
}
