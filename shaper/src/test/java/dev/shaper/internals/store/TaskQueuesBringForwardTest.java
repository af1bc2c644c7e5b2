package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bringing a key's queue forward to a raised rate, on the task's two stores over in-memory inner stores: the records
 * not yet due come forward at the new spacing, in order, none lost; those already due keep their dues; the work is
 * done a bounded number of records at a time. Records are queued as the processor queues them: 1/s from time 0.
 */
class TaskQueuesBringForwardTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final ShapingRule ONE_PER_SECOND = new ShapingRule(1, 100, 600_000);
    private static final ShapingRule TEN_PER_SECOND = new ShapingRule(10, 100, 600_000);

    private ScheduleStore schedule;
    private KeyStateStore keyStates;
    private final Map<String, ShapingRule> rules = new HashMap<>();
    private TaskQueues queues;

    @BeforeEach
    void setUp() {
        InMemoryTaskStores stores = InMemoryTaskStores.open(100);
        schedule = stores.schedule();
        keyStates = stores.keyStates();
        queues = new TaskQueues(schedule, keyStates, this::ruleOf);
    }

    private ShapingRule ruleOf(byte[] key) {
        return rules.getOrDefault(new String(key, StandardCharsets.UTF_8), ONE_PER_SECOND);
    }

    /** Queues {@code count} records of {@code key} at time 0, as the processor does (the first at 0 too). */
    private void queue(String key, int count) {
        queue(key, count, 0);
    }

    /** Queues {@code count} records of {@code key} from {@code firstDueNanos} on, at its rule's spacing. */
    private void queue(String key, int count, long firstDueNanos) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        queues.setNow(0, 0);
        for (int i = 0; i < count; i++) {
            KeyEntry entry = queues.entry(k);
            KeyState state = entry.state();
            long due = Math.max(state.tatNanos(), firstDueNanos);
            KeyState next = new KeyState(due + ruleOf(k).intervalNanos(1), state.queuedRecords() + 1,
                    state.queuedUnits() + 1, state.queuedBytes(), state.releaseTatNanos());
            queues.enqueue(entry, k, ruleOf(k), due, next, 0, 0, 1, Long.MAX_VALUE, new RecordHeaders(),
                    (key + "-" + i).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Every queued record as "value@due ms", in store order. */
    private List<String> queued() {
        List<String> all = new ArrayList<>();
        schedule.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE), ScheduleKeys.lowerBound(Long.MAX_VALUE), entry -> {
            all.add(new String(QueuedRecord.decode(entry.value()).value(), StandardCharsets.UTF_8) + "@"
                    + entry.dueNanos() / MS);
            return true;
        });
        return all;
    }

    @Test
    void shouldBringTheRecordsNotYetDueForwardToTheRaisedRateAndKeepThoseAlreadyDue() {
        // Given: five records of a at 1/s (due at 0, 1, 2, 3 and 4 s), 1.5 s later (two due, not yet released)
        queue("a", 5);
        rules.put("a", TEN_PER_SECOND);

        // When: the rule is 10/s
        boolean done = queues.bringForward(1_500 * MS, this::ruleOf, 1_000);

        // Then: the two already due keep their dues, the others follow them 100 ms apart from now
        assertThat(done).isTrue();
        assertThat(queued()).containsExactly("a-0@0", "a-1@1000", "a-2@1600", "a-3@1700", "a-4@1800");
        // And: the key's next arrival comes 100 ms after its last
        KeyState state = queues.entry("a".getBytes(StandardCharsets.UTF_8)).state();
        assertThat(state.tatNanos()).isEqualTo(1_900 * MS);
        assertThat(state.queuedRecords()).isEqualTo(5);
    }

    @Test
    void shouldLeaveAKeyWhoseRateDidNotRiseAsItIs() {
        queue("a", 5);

        assertThat(queues.bringForward(1_500 * MS, this::ruleOf, 1_000)).isTrue();

        assertThat(queued()).containsExactly("a-0@0", "a-1@1000", "a-2@2000", "a-3@3000", "a-4@4000");
        assertThat(queues.entry("a".getBytes(StandardCharsets.UTF_8)).state().tatNanos()).isEqualTo(5 * SECOND);
    }

    @Test
    void shouldTakeWholeKeysUpToTheBoundPerCallAndTheRestAtTheNext() {
        // Given: two keys of 4 records each, both raised; at most 5 records per call
        queue("a", 4);
        queue("b", 4);
        rules.put("a", TEN_PER_SECOND);
        rules.put("b", TEN_PER_SECOND);

        // When: the first call takes one key (4 records; the other's 4 would pass the bound)
        boolean first = queues.bringForward(500 * MS, this::ruleOf, 5);
        List<String> afterFirst = queued();
        boolean second = queues.bringForward(500 * MS, this::ruleOf, 5);

        // Then
        assertThat(first).isFalse();
        assertThat(afterFirst.stream().filter(r -> r.endsWith("@3000"))).hasSize(1); // one key still at 1/s
        assertThat(second).isTrue();
        assertThat(queued()).containsExactlyInAnyOrder("a-0@0", "a-1@600", "a-2@700", "a-3@800",
                "b-0@0", "b-1@600", "b-2@700", "b-3@800");
        assertThat(queues.queuedRecords()).isEqualTo(8);
    }

    @Test
    void shouldKeepEveryRecordWhenTheQueueWasWrittenToTheStoreBefore() {
        // Given: a's records in stored segments (a commit wrote them), one of them released in part
        queue("a", 6);
        schedule.flush();
        rules.put("a", TEN_PER_SECOND);

        // When
        queues.bringForward(2_500 * MS, this::ruleOf, 1_000);
        schedule.flush();

        // Then: all six once, in order, the store holding only them
        assertThat(queued()).containsExactly("a-0@0", "a-1@1000", "a-2@2000", "a-3@2600", "a-4@2700", "a-5@2800");
    }

    @Test
    void shouldMakeTheFirstRecordNotYetDueDueNowWhenNoneOfItsKeyIsDue() {
        queue("a", 3, SECOND); // due at 1, 2 and 3 s (the key's record before them left at 0)
        rules.put("a", TEN_PER_SECOND);

        queues.bringForward(500 * MS, this::ruleOf, 1_000);

        // The release side's pacing, brought to 10/s too, keeps the first 100 ms after the key's last release
        assertThat(queued()).containsExactly("a-0@500", "a-1@600", "a-2@700");
    }

    @Test
    void shouldBringALoneRecordFarOutForwardButLeaveOneWithinItsRulesInterval() {
        queue("far", 1, 9 * SECOND); // its slot at a slow rate, 9 s out
        queue("near", 1, SECOND); // one interval of its rule (1/s) out, as a key on schedule is
        rules.put("far", TEN_PER_SECOND);

        queues.bringForward(0, this::ruleOf, 1_000);

        assertThat(queued()).containsExactlyInAnyOrder("far-0@0", "near-0@1000");
    }

    @Test
    void shouldCountTheWaitingKeysAtTheirRulesInForce() {
        queue("a", 3);
        assertThat(queues.fastestWaitingRate()).isEqualTo(1.0);
        rules.put("a", TEN_PER_SECOND);

        queues.bringForward(0, this::ruleOf, 1_000);

        assertThat(queues.fastestWaitingRate()).isEqualTo(10.0);
    }
}
