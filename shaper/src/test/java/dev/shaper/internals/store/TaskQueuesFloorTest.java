package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/** Where the release punctuator's next scan starts: never past a record that may still be queued. */
class TaskQueuesFloorTest {

    private static Bytes key(long due, String k) {
        return ScheduleKeys.of(due, k.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldStartAtNowWhenTheScanWentToItsEnd() {
        assertThat(TaskQueues.nextScanFloor(100, null, null, null)).isEqualTo(ScheduleKeys.lowerBound(100));
    }

    @Test
    void shouldStartWhereTheTotalCapStoppedAnEarlierRecord() {
        assertThat(TaskQueues.nextScanFloor(100, key(40, "a"), null, null)).isEqualTo(key(40, "a"));
    }

    @Test
    void shouldNotStartPastARecordThatArrivesDueNowWhenTheCapStoppedAtOneDueNow() {
        // The cap stopped at "m" due now; "b", due now too, arrives in the same millisecond and sorts before it.
        Bytes floor = TaskQueues.nextScanFloor(100, key(100, "m"), null, null);
        assertThat(floor.compareTo(key(100, "b"))).isNegative();
    }

    @Test
    void shouldStartAtTheEarliestOfHeldBackStoppedAndOpen() {
        assertThat(TaskQueues.nextScanFloor(100, key(60, "s"), key(50, "h"), key(70, "o")))
                .isEqualTo(key(50, "h"));
        assertThat(TaskQueues.nextScanFloor(100, key(60, "s"), key(50, "h"), key(20, "o")))
                .isEqualTo(key(20, "o"));
    }
}
