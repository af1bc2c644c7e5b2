package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.shaping.WindowCurve;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cutting the records that can no longer make their bound once the rate a task's backlog drains at fell, on the
 * task's two stores over in-memory inner stores: what is cut is exactly what the new rate would release past its
 * bound, counting only the units kept ahead; what stays keeps its dues and order; the counts follow.
 */
class TaskQueuesCutTest {

    private static final long MS = 1_000_000L;
    /** 100/s, a bound of 1 s. */
    private static final ShapingRule FAST = new ShapingRule(100, 10_000, 1_000);

    private ScheduleStore schedule;
    private KeyStateStore keyStates;
    private final Map<String, ShapingRule> rules = new HashMap<>();
    private TaskQueues queues;
    private final List<String> cut = new ArrayList<>();

    @BeforeEach
    void setUp() {
        InMemoryTaskStores stores = InMemoryTaskStores.open(1_000);
        schedule = stores.schedule();
        keyStates = stores.keyStates();
        queues = new TaskQueues(schedule, keyStates, this::ruleOf);
    }

    private ShapingRule ruleOf(byte[] key) {
        return rules.getOrDefault(new String(key, StandardCharsets.UTF_8), FAST);
    }

    /** Queues {@code count} records of {@code key}, timestamped and arrived at {@code wallMs}, at its rule's spacing. */
    private void queue(String key, int count, long wallMs) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int first = queues.entry(k).state().queuedRecords();
        for (int i = 0; i < count; i++) {
            KeyEntry entry = queues.entry(k);
            KeyState state = entry.state();
            long due = Math.max(state.tatNanos(), wallMs * MS);
            KeyState next = new KeyState(due + ruleOf(k).intervalNanos(1), state.queuedRecords() + 1,
                    state.queuedUnits() + 1, state.queuedBytes(), state.releaseTatNanos());
            queues.enqueue(entry, k, ruleOf(k), due, next, wallMs, wallMs, 1, Long.MAX_VALUE, new RecordHeaders(),
                    (key + "-" + (first + i)).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Cuts at wall (and virtual) time {@code wallMs}, the backlog draining at {@code rate} units a second. */
    private int cutAt(long wallMs, double rate) {
        TaskQueues.BacklogBounds bounds = new TaskQueues.BacklogBounds() {
            @Override
            public long latestReleaseWallMs(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs) {
                ShapingRule rule = ruleOf(key);
                return rule.shadow() ? Long.MAX_VALUE : Math.min(deadlineMs, timestampMs + rule.maxDelayMs());
            }

            @Override
            public ShapingRule rule(byte[] key) {
                return ruleOf(key);
            }
        };
        return queues.cutUnreachable(new TaskQueues.BacklogEstimate(wallMs * MS, wallMs, 0, rate, WindowCurve.OPEN, 1), bounds,
                (key, record, storedBytes, expectedWallMs, latestWallMs) -> cut.add(
                        new String(record.value(), StandardCharsets.UTF_8) + "@" + expectedWallMs + ">"
                                + latestWallMs));
    }

    /** Every queued record's value, in store order. */
    private List<String> queued() {
        List<String> all = new ArrayList<>();
        schedule.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE), ScheduleKeys.lowerBound(Long.MAX_VALUE), entry -> {
            all.add(new String(QueuedRecord.decode(entry.value()).value(), StandardCharsets.UTF_8));
            return true;
        });
        return all;
    }

    private KeyState state(String key) {
        return queues.entry(key.getBytes(StandardCharsets.UTF_8)).state();
    }

    @Test
    void shouldCutWhatTheLowerRateWouldReleasePastItsBound() {
        // Given: 50 records of a queued at 0 with a bound of 1 s, accepted while the backlog drained at 100/s
        queue("a", 50, 0);

        // When: it drains at 20/s: the record with k ahead of it leaves at k x 50 ms
        int count = cutAt(0, 20);

        // Then: the 21 that leave by 1,000 ms stay, in order; the 29 after them are cut, each expected behind the 21
        assertThat(count).isEqualTo(29);
        assertThat(cut).hasSize(29).startsWith("a-21@1050>1000").endsWith("a-49@1050>1000");
        assertThat(queued()).hasSize(21).startsWith("a-0").endsWith("a-20");
        assertThat(state("a").queuedRecords()).isEqualTo(21);
        assertThat(queues.queuedRecords()).isEqualTo(21);
        assertThat(queues.queuedUnits()).isEqualTo(21);
    }

    @Test
    void shouldCutNothingWhileEveryRecordStillMakesItsBound() {
        queue("a", 20, 0);

        assertThat(cutAt(0, 20)).isZero(); // the last leaves at 950 ms

        assertThat(queued()).hasSize(20);
        assertThat(cut).isEmpty();
    }

    @Test
    void shouldKeepALaterRecordWithAMoreDistantBoundBehindOnesItCuts() {
        // Given: ten records of a queued at 0 (bound 1,000 ms), one more queued at 900 ms (bound 1,900 ms)
        queue("a", 10, 0);
        queue("a", 1, 900);

        // When: the backlog drains at 5/s, seen at 0
        cutAt(0, 5);

        // Then: six leave by 1,000 ms; four are cut; the last, behind the six kept, leaves at 1,200 ms and stays
        assertThat(cut).containsExactly("a-6@1200>1000", "a-7@1200>1000", "a-8@1200>1000", "a-9@1200>1000");
        assertThat(queued()).containsExactly("a-0", "a-1", "a-2", "a-3", "a-4", "a-5", "a-10");
        assertThat(state("a").queuedRecords()).isEqualTo(7);
    }

    @Test
    void shouldCountOnlyTheKeptRecordsOfOtherKeysAheadOfARecord() {
        // Given: a and b, 10 records each, queued at 0, interleaved in due order (both at 100/s)
        queue("a", 10, 0);
        queue("b", 10, 0);

        // When: the backlog drains at 10/s: ten records leave by 1 s, the ten after them are cut
        cutAt(0, 10);

        // Then: the first eleven in due order stay (the store shows them key by key)
        assertThat(queued()).containsExactlyInAnyOrder("a-0", "b-0", "a-1", "b-1", "a-2", "b-2", "a-3", "b-3", "a-4", "b-4",
                "a-5");
        assertThat(cut).hasSize(9);
        assertThat(state("a").queuedRecords() + state("b").queuedRecords()).isEqualTo(11);
    }

    @Test
    void shouldCountAHigherPriorityAheadOfALowerOne() {
        // Given: 10 records of "low" (priority 1) queued before 5 of "high" (priority 0)
        rules.put("low", new ShapingRule(100, 10_000, 1_000, 1, 1));
        queue("low", 10, 0);
        queue("high", 5, 0);

        // When: 10/s: the five of high leave first (by 400 ms), then low's from 500 ms on, 100 ms apart
        cutAt(0, 10);

        // Then: low keeps the six that leave by 1,000 ms
        assertThat(cut).containsExactly("low-6@1100>1000", "low-7@1100>1000", "low-8@1100>1000",
                "low-9@1100>1000");
        assertThat(state("high").queuedRecords()).isEqualTo(5);
    }

    @Test
    void shouldNotCutAKeyInShadow() {
        // Given: 30 records of a key in shadow, queued at 0 (from before its rule went into shadow)
        rules.put("shadow", FAST.withShadow(true));
        queue("shadow", 30, 0);

        // When: the backlog drains at 10/s
        assertThat(cutAt(0, 10)).isZero();

        // Then: its rule is not enforced: it stays, and expires at its bound if it must
        assertThat(state("shadow").queuedRecords()).isEqualTo(30);
    }

    @Test
    void shouldNotCountAKeysOwnSpacingTwice() {
        // Given: a key whose own rate (4/s) spaces its records 250 ms apart, the last due at 750 ms (bound 1 s)
        rules.put("slow", new ShapingRule(4, 10_000, 1_000));
        queue("slow", 4, 0);

        // When: the backlog drains at the same 4/s
        assertThat(cutAt(0, 4)).isZero();

        // Then
        assertThat(state("slow").queuedRecords()).isEqualTo(4);
    }

    @Test
    void shouldForgetTheWaitingRateOfAKeyCutWhole() {
        // Given: a (100/s) and late (200/s, a bound of 100 ms) behind it
        rules.put("late", new ShapingRule(200, 10_000, 100));
        queue("a", 1, 0);
        queue("late", 3, 0);

        // When: at 10/s, late's first record leaves at 100 ms, its others later: cut
        cutAt(0, 10);

        // Then: late still waits with one record; once that one is cut too, the fastest waiting key is a
        assertThat(state("late").queuedRecords()).isEqualTo(1);
        assertThat(queues.fastestWaitingRate()).isEqualTo(200.0);
        cutAt(50, 5);
        assertThat(state("late").queuedRecords()).isZero();
        assertThat(queues.fastestWaitingRate()).isEqualTo(100.0);
    }

    @Test
    void shouldKeepRecordsTheStoreHoldsInSegmentsOnceAndInOrder() {
        // Given: the records written to the store by a commit
        queue("a", 30, 0);
        schedule.flush();

        // When
        cutAt(0, 20);
        schedule.flush();

        // Then
        assertThat(queued()).hasSize(21).startsWith("a-0").endsWith("a-20");
        assertThat(cut).hasSize(9);
    }
}
