package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a rejected record was refused, told by the shaper's shaper.queued.ms on a record that waited. */
class RejectionStageTest {

    @Test
    void shouldTellARecordTakenOutOfItsQueueFromOneRefusedAtArrival() {
        assertThat(RejectionStage.ofQueuedMs("3112")).isEqualTo(RejectionStage.WHILE_QUEUED);
        assertThat(RejectionStage.ofQueuedMs("0")).isEqualTo(RejectionStage.WHILE_QUEUED);
        assertThat(RejectionStage.ofQueuedMs(null)).isEqualTo(RejectionStage.AT_ARRIVAL);
    }

    @Test
    void shouldTellApartOnlyTheReasonsAQueuedRecordMayGet() {
        assertThat(RejectionStage.bothPossible("DELAY_EXCEEDED")).isTrue();
        assertThat(RejectionStage.bothPossible("DEADLINE_EXCEEDED")).isTrue();
        assertThat(RejectionStage.bothPossible("QUEUE_FULL")).isFalse();
        assertThat(RejectionStage.bothPossible("RATE_LIMITED")).isFalse();
    }
}
