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
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/**
 * What reaches the inner stores (RocksDB, and under at-least-once the changelogs) ahead of a commit, when the key
 * states pass their share of the instance's bound: a task restarted after a crash at that point finds the schedule
 * holding exactly the records its key states count, after arrivals and after a release alike.
 */
class TaskQueuesWriteAheadTest {

    private static final long MS = 1_000_000L;
    /** 10/s, so that a key's second record waits. */
    private static final ShapingRule RULE = new ShapingRule(10, 10_000, 60_000);
    private static final int KEYS = 30;
    /** Key states in memory: a third of the keys, so that the changed states pass it. */
    private static final int MAX_KEYS = 10;

    /** The schedule never writes early by itself: only a write of the states ahead of the commit makes it. */
    private final InMemoryTaskStores stores = InMemoryTaskStores.open(1_000_000, MAX_KEYS);
    private final TaskQueues queues = new TaskQueues(stores.schedule(), stores.keyStates(), key -> RULE);

    /** Queues a record of {@code key} as the processor does, then lets the stores write ahead if they are due to. */
    private void queue(String key, long wallMs) {
        queue(queues, RULE, key, wallMs);
    }

    private static void queue(TaskQueues queues, ShapingRule rule, String key, long wallMs) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        KeyEntry entry = queues.entry(k);
        KeyState state = entry.state();
        long due = Math.max(state.tatNanos(), wallMs * MS);
        KeyState next = new KeyState(due + rule.intervalNanos(1), state.queuedRecords() + 1, state.queuedUnits() + 1,
                state.queuedBytes(), state.releaseTatNanos());
        queues.enqueue(entry, k, rule, due, next, wallMs, wallMs, 1, Long.MAX_VALUE, new RecordHeaders(),
                key.getBytes(StandardCharsets.UTF_8));
        queues.writeAheadIfDue();
    }

    /** Per key, the records a task restarted now would find queued, and what its key state would count. */
    private static Map<String, String> afterACrash(InMemoryTaskStores crashed) {
        return afterACrash(crashed, KEYS, "key-");
    }

    private static Map<String, String> afterACrash(InMemoryTaskStores crashed, int keys, String prefix) {
        InMemoryTaskStores restarted = crashed.reopened();
        Map<String, Integer> scheduled = new HashMap<>();
        List<ScheduleStore> bands = new ArrayList<>(List.of(restarted.schedule()));
        restarted.schedule().storedBands().forEach(band -> bands.add(restarted.schedule().band(band)));
        for (ScheduleStore band : bands) {
            band.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE),
                    Bytes.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}), entry -> {
                        scheduled.merge(new String(entry.recordKey(), StandardCharsets.UTF_8), 1, Integer::sum);
                        return true;
                    });
        }
        Map<String, String> found = new HashMap<>();
        for (int i = 0; i < keys; i++) {
            String key = prefix + i;
            int counted = restarted.keyStates().get(key.getBytes(StandardCharsets.UTF_8)).queuedRecords();
            found.put(key, "schedule " + scheduled.getOrDefault(key, 0) + ", state " + counted);
        }
        return found;
    }

    @Test
    void shouldWriteTheScheduleWithTheKeyStatesWhenTheyGoAheadOfTheCommitAfterArrivals() {
        // When: two records of each of 30 keys queue, the states of more keys changing than the stores keep
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < KEYS; i++) {
                queue("key-" + i, 1_000);
            }
        }

        // Then: states went to the inner store before any commit, and with them every record they count
        assertThat(KeyStateScan.count(stores.keyInner())).as("states written ahead of the commit").isPositive();
        Map<String, String> found = afterACrash(stores);
        assertThat(found).allSatisfy((key, what) -> assertThat(what).matches("schedule (\\d), state \\1"));
        assertThat(found.values()).as("some keys restored with their queue").contains("schedule 2, state 2");
    }

    @Test
    void shouldWriteTheScheduleWithTheKeyStatesWhenTheyGoAheadOfTheCommitAfterARelease() {
        // Given: two records of each key queued and committed
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < KEYS; i++) {
                queue("key-" + i, 1_000);
            }
        }
        stores.schedule().flushCache();
        stores.keyStates().flushCache();

        // When: one scan takes every record out (expired), the states of every key changing, then the tick ends
        queues.setNow(10_000 * MS, 0);
        queues.releaseDue(10_000 * MS, new ExpireAll(), new TaskQueues.ReleasedRecords() {
            @Override
            public void released(byte[] key, QueuedRecord record, long storedBytes) {
            }

            @Override
            public void expired(byte[] key, QueuedRecord record, long storedBytes) {
            }
        });
        queues.writeAheadIfDue();

        // Then: what a restart finds is consistent: never a state that no longer counts records its schedule holds
        Map<String, String> found = afterACrash(stores);
        assertThat(found).allSatisfy((key, what) -> assertThat(what).matches("schedule (\\d), state \\1"));
    }

    @Test
    void shouldWriteEveryBandsScheduleBeforeTheKeyStatesWhenOneBandWritesEarly() {
        // Given: the schedule keeps 5 records in memory per band; three keys of the default band queue one each
        InMemoryTaskStores small = InMemoryTaskStores.open(5, 1_000);
        ShapingRule urgent = RULE.withShare(1, 1.0);
        TaskQueues banded = new TaskQueues(small.schedule(), small.keyStates(),
                key -> new String(key, StandardCharsets.UTF_8).startsWith("urgent") ? urgent : RULE);
        for (int i = 0; i < 3; i++) {
            queue(banded, RULE, "key-" + i, 1_000);
        }

        // When: a key of another band queues enough for its band to write early, and the states with it
        for (int i = 0; i < 10; i++) {
            queue(banded, urgent, "urgent-0", 1_000);
        }

        // Then: the default band's records went to the store with the states that count them
        Map<String, String> found = afterACrash(small, 3, "key-");
        assertThat(found).allSatisfy((key, what) -> assertThat(what).matches("schedule (\\d), state \\1"));
        assertThat(afterACrash(small, 1, "urgent-").get("urgent-0")).as("the band written early, with its state")
                .matches("schedule ([1-9]\\d*), state \\1");
    }

    /** A release policy under which every due record has waited too long. */
    private static final class ExpireAll implements TaskQueues.ReleasePolicy {
        @Override
        public boolean expired(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs) {
            return true;
        }

        @Override
        public KeyState release(byte[] key, KeyEntry entry, long dueNanos, long cost) {
            return null;
        }

        @Override
        public void released(KeyEntry entry, long cost) {
        }

        @Override
        public boolean takeTotal(long cost, int priority) {
            return true;
        }

        @Override
        public double availableUnits() {
            return Double.POSITIVE_INFINITY;
        }

        @Override
        public ShapingRule rule(byte[] key) {
            return RULE;
        }

        @Override
        public int servedPriority() {
            return Integer.MAX_VALUE;
        }
    }
}
