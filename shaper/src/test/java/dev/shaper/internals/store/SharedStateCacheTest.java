package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The key-state stores of several tasks under one {@link StateCacheBudget}, as the tasks of one instance are: the
 * bound holds for them together, not for each.
 */
class SharedStateCacheTest {

    private static final int BOUND = 10;
    /** A state that still matters at virtual time 0, so a commit writes it and its slot becomes clean. */
    private static final KeyState LIVE = new KeyState(100_000_000L, 0, 0, 0);

    private StateCacheBudget budget;
    private final List<KeyStateStore> stores = new ArrayList<>();
    private KeyStateStore a;
    private KeyStateStore b;

    @BeforeEach
    void setUp() {
        budget = new StateCacheBudget(BOUND);
        a = open("a");
        b = open("b");
    }

    private KeyStateStore open(String name) {
        KeyValueStore<Bytes, byte[]> inner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        KeyStateStore store = new KeyStateStore(inner, budget);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        store.setVirtualNow(0);
        stores.add(store);
        return store;
    }

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Puts a live state for {@code count} distinct keys, checking the instance's slot count after each put. */
    private void fill(KeyStateStore store, String prefix, int count, int atMost) {
        for (int i = 0; i < count; i++) {
            store.put(k(prefix + i), LIVE);
            if (store.writeAheadDue()) {
                store.writeAhead(); // as the task's queues do between records (TaskQueues.writeAheadIfDue)
            }
            assertThat(cached()).as("slots after put %d of %s", i, prefix).isLessThanOrEqualTo(atMost);
            assertThat(budget.cachedKeys()).as("the count the budget keeps").isEqualTo(cached());
        }
    }

    /** The slots all stores hold. */
    private long cached() {
        return stores.stream().mapToLong(KeyStateStore::cachedKeyCount).sum();
    }

    @Test
    void shouldKeepAtMostTheBoundAcrossTheStoresOnceTheyCommitted() {
        // Given: one task filled the instance's cache and committed
        fill(a, "a", BOUND, BOUND);
        a.flushCache();
        // When: another task of the same instance does the same
        fill(b, "b", BOUND, 2 * BOUND);
        b.flushCache();
        // Then: the two hold the bound between them, not the bound each
        assertThat(cached()).isEqualTo(BOUND);
    }

    @Test
    void shouldExceedTheBoundByNoMoreThanTheBoundAgainWhileChangesWaitForTheCommit() {
        // Given: a full cache of committed slots
        fill(a, "a", BOUND, BOUND);
        a.flushCache();
        // When: two other tasks change ten times the bound in distinct keys each with no commit (a long interval)
        // Then: changed slots cannot be dropped before they are written, but never hold more than the bound again
        KeyStateStore c = open("c");
        for (int i = 0; i < 10 * BOUND; i++) {
            fill(b, "b" + i + "-", 1, 2 * BOUND);
            fill(c, "c" + i + "-", 1, 2 * BOUND);
        }
        b.flushCache();
        c.flushCache();
        assertThat(cached()).isLessThanOrEqualTo(BOUND);
        // Nothing was lost: each key's state is where the next lookup finds it
        for (int i = 0; i < 10 * BOUND; i++) {
            assertThat(b.get(k("b" + i + "-0"))).isEqualTo(LIVE);
            assertThat(c.get(k("c" + i + "-0"))).isEqualTo(LIVE);
        }
    }

    @Test
    void shouldLeaveTheWholeBoundToTheOthersWhenAStoreCloses() {
        // Given: one task holds the whole cache
        fill(a, "a", BOUND, BOUND);
        a.flushCache();
        // When: its task closes (it moved to another instance), and another task's keys come
        a.close();
        fill(b, "b", BOUND, BOUND);
        b.flushCache();
        // Then: they have the whole cache
        assertThat(b.cachedKeyCount()).isEqualTo(BOUND);
        assertThat(budget.cachedKeys()).isEqualTo(BOUND);
    }

    @Test
    void shouldGiveBackWhatAnotherStoreNeedsAtTheNextCommit() {
        // Given: a task that went quiet holds the whole cache
        fill(a, "a", BOUND, BOUND);
        a.flushCache();
        // When: another task keeps using three keys, which the bound leaves no room for, and the quiet one commits
        for (int round = 0; round < 2; round++) {
            fill(b, "b", 3, 2 * BOUND);
            b.flushCache();
        }
        a.flushCache();
        fill(b, "b", 3, BOUND);
        b.flushCache();
        // Then: the busy task keeps its three keys in memory, the quiet one at most what remains
        assertThat(b.cachedKeyCount()).isEqualTo(3);
        assertThat(a.cachedKeyCount()).isLessThanOrEqualTo(BOUND - 3);
    }
}
