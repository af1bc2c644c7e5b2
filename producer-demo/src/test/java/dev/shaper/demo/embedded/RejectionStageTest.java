package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a rejected record was refused, told by its detail as the shaper words it. */
class RejectionStageTest {

    @Test
    void shouldTellARecordTakenOutOfItsQueueFromOneRefusedAtArrival() {
        // The shaper's details, as it writes them (ShaperProcessor, LeakyBucket, OutputChecks)
        assertThat(RejectionStage.ofDetail("expired while queued: waited 3112 ms since its timestamp, more than this"
                + " key's max.delay.ms of 3000 ms (the total rate's share shrank or the release stalled)"))
                .isEqualTo(RejectionStage.WHILE_QUEUED);
        assertThat(RejectionStage.ofDetail("taken out of its queue when the capacity or this partition's part of it"
                + " shrank: at 6.0/s, the rate this partition's backlog drains at now, it would have been released at"
                + " about 1764000003000, 1200 ms after its bound, this key's max.delay.ms of 3000 ms since its"
                + " timestamp")).isEqualTo(RejectionStage.WHILE_QUEUED);
        assertThat(RejectionStage.ofDetail("still queued at its deadline 1764000000000 (shaper.deadline.ms), 12 ms"
                + " after it, having waited 900 ms")).isEqualTo(RejectionStage.WHILE_QUEUED);
        assertThat(RejectionStage.ofDetail("record would wait 3450 ms, the most allowed is 3000 ms"))
                .isEqualTo(RejectionStage.AT_ARRIVAL);
        assertThat(RejectionStage.ofDetail("arrived 3500 ms after its timestamp 1764000000000, more than this key's"
                + " max.delay.ms of 3000 ms (shaper.shaping.max.delay.from=timestamp)"))
                .isEqualTo(RejectionStage.AT_ARRIVAL);
    }

    @Test
    void shouldTakeARecordWithoutADetailAsRefusedAtArrival() {
        assertThat(RejectionStage.ofDetail(null)).isEqualTo(RejectionStage.AT_ARRIVAL);
    }

    @Test
    void shouldTellApartOnlyTheReasonsAQueuedRecordMayGet() {
        assertThat(RejectionStage.bothPossible("DELAY_EXCEEDED")).isTrue();
        assertThat(RejectionStage.bothPossible("DEADLINE_EXCEEDED")).isTrue();
        assertThat(RejectionStage.bothPossible("QUEUE_FULL")).isFalse();
        assertThat(RejectionStage.bothPossible("RATE_LIMITED")).isFalse();
    }
}
