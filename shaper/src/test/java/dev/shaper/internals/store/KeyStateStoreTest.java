package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KeyStateStoreTest {

    /** A millisecond of virtual time: states due sooner than {@link KeyStateStore#PERSIST_SLACK_NANOS} are not written. */
    private static final long MS = 1_000_000L;

    private KeyValueStore<Bytes, byte[]> inner;
    private KeyStateStore store;

    @BeforeEach
    void setUp() {
        inner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("keys"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        store = new KeyStateStore(inner, new StateCacheBudget(3));
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
    }

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldNotWriteAStateThatIsIdleByTheCommit() {
        store.setVirtualNow(100);
        store.put(k("a"), new KeyState(150, 0, 0, 0));
        store.setVirtualNow(200);
        store.flushCache();
        assertThat(inner.approximateNumEntries()).isZero();
        assertThat(store.get(k("a"))).isEqualTo(KeyState.ABSENT);
    }

    @Test
    void shouldKeepAStateThatFallsIdleWithinTheSlackInMemoryOnly() {
        // Given: at virtual time 100, a key whose next record may leave at 100 + slack, and one a nanosecond later
        store.setVirtualNow(100);
        KeyState almostIdle = new KeyState(100 + KeyStateStore.PERSIST_SLACK_NANOS, 0, 0, 0);
        KeyState live = new KeyState(101 + KeyStateStore.PERSIST_SLACK_NANOS, 0, 0, 0);
        store.put(k("almost"), almostIdle);
        store.put(k("live"), live);
        // When
        store.flushCache();
        // Then: only the live one is written; the other still decides its key's next record from memory
        assertThat(store.storedKeyCount()).isEqualTo(1);
        assertThat(inner.get(KeyStateKeys.of(k("live")))).isNotNull();
        assertThat(store.get(k("almost"))).isEqualTo(almostIdle);
    }

    @Test
    void shouldNotDropAStateKeptInMemoryOnlyWhileItMatters() {
        // Given: a state that falls idle within the slack (kept in memory only), used least recently, and four
        // live states after it: one more than the three clean slots the store keeps
        store.setVirtualNow(100);
        KeyState almostIdle = new KeyState(100 + KeyStateStore.PERSIST_SLACK_NANOS, 0, 0, 0);
        store.put(k("almost"), almostIdle);
        for (String key : new String[] {"b", "c", "d", "e"}) {
            store.put(k(key), new KeyState(100 * MS, 0, 0, 0));
        }
        // When: the commit trims the clean slots
        store.flushCache();
        // Then: the stored ones went, not the one the inner store could not give back
        assertThat(store.get(k("almost"))).isEqualTo(almostIdle);
        // Once idle, it may go like any other
        store.setVirtualNow(200 + KeyStateStore.PERSIST_SLACK_NANOS);
        for (String key : new String[] {"f", "g", "h"}) {
            store.put(k(key), new KeyState(100 * MS, 0, 0, 0));
        }
        store.flushCache();
        assertThat(store.get(k("almost"))).isEqualTo(KeyState.ABSENT);
    }

    @Test
    void shouldDeleteTheStoredStateOfAKeyWhoseNewStateIsNotWorthWriting() {
        // Given: a key written with a queued record
        store.setVirtualNow(100);
        store.put(k("a"), new KeyState(500, 1, 1, 10));
        store.flushCache();
        assertThat(store.storedKeyCount()).isEqualTo(1);
        // When: the record left, and the key's next record may leave within the slack
        store.setVirtualNow(500);
        store.put(k("a"), new KeyState(600, 0, 0, 0));
        store.flushCache();
        // Then: the stored state, which still counts the queued record, is gone
        assertThat(store.storedKeyCount()).isZero();
        assertThat(store.get(k("a"))).isEqualTo(new KeyState(600, 0, 0, 0));
    }

    @Test
    void shouldWriteAStateThatStillMattersAndDeleteItOnceIdle() {
        store.setVirtualNow(100);
        KeyState queued = new KeyState(500, 1, 1, 10);
        store.put(k("a"), queued);
        store.flushCache();
        assertThat(store.storedKeyCount()).isEqualTo(1);

        store.put(k("a"), new KeyState(500, 0, 0, 0));
        store.setVirtualNow(600);
        store.flushCache();
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldReadBackTheBandOfAQueuedKeyEvictedFromMemory() {
        store.setVirtualNow(0);
        for (String key : new String[] {"a", "b", "c", "d", "e"}) {
            KeyEntry entry = store.entry(k(key));
            entry.queuedBand = new ScheduleBand(3, 2.0);
            entry.update(new KeyState(1_000, 1, 1, 1));
        }
        store.flushCache(); // only 3 clean states stay in memory: "a" and "b" are read back from the inner store

        for (String key : new String[] {"a", "b", "c", "d", "e"}) {
            assertThat(store.entry(k(key)).queuedBand()).as(key).isEqualTo(new ScheduleBand(3, 2.0));
        }
    }

    @Test
    void shouldServeStatesFromMemoryAndReadBackWhatWasEvictedFromIt() {
        store.setVirtualNow(0);
        for (String key : new String[] {"a", "b", "c", "d", "e"}) {
            store.put(k(key), new KeyState(1_000, 1, 1, 1));
        }
        store.flushCache(); // only 3 clean states stay in memory
        for (String key : new String[] {"a", "b", "c", "d", "e"}) {
            assertThat(store.get(k(key))).isEqualTo(new KeyState(1_000, 1, 1, 1));
        }
    }

    @Test
    void shouldSweepIdleStatesInBoundedSteps() {
        store.setVirtualNow(0);
        for (int i = 0; i < 10; i++) {
            store.put(k("key-" + i), new KeyState(100 * MS + i, 0, 0, 0));
        }
        store.put(k("busy"), new KeyState(100 * MS, 2, 2, 2));
        store.flushCache();
        store.clearCache(); // as after a restart: nothing in memory
        assertThat(store.storedKeyCount()).isEqualTo(11);

        // "busy" sorts first and stays; each call looks at four entries, resuming where the last stopped
        assertThat(store.evictIdle(1_000 * MS, 4)).isEqualTo(3);
        assertThat(store.evictIdle(1_000 * MS, 4)).isEqualTo(4);
        assertThat(store.evictIdle(1_000 * MS, 4)).isEqualTo(3);
        assertThat(store.storedKeyCount()).isEqualTo(1);
        assertThat(store.get(k("busy")).queuedRecords()).isEqualTo(2);
    }

    @Test
    void shouldNotSkipAKeyThatExtendsTheOneAStepStoppedAt() {
        // Given: after a restart, two idle states whose record keys are "a" and "ab" ("ab" sorts right after "a")
        store.setVirtualNow(0);
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.put(k("ab"), new KeyState(100 * MS, 0, 0, 0));
        store.flushCache();
        store.clearCache();
        assertThat(store.storedKeyCount()).isEqualTo(2);
        // When: steps of one entry each (the clock, then "a", then "ab"), and later passes
        long t = 1_000 * MS;
        for (int step = 0; step < 10; step++) {
            store.evictIdle(t + step * IdleSweeper.MIN_PASS_INTERVAL_NANOS, 1);
        }
        // Then: the step after the one that stopped at "a" resumed before "ab", not after every key starting with "a"
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldKeepWritingTheVirtualTimeForARestoredStateThatNoSlotKnowsOf() {
        // Given: after a restart, an idle state "a" and a live one "ab" that no slot knows of
        store.setVirtualNow(0);
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.put(k("ab"), new KeyState(100_000 * MS, 1, 1, 1));
        store.flushCache();
        store.clearCache();
        // When: a whole pass in steps of one entry, then a commit
        long t = 1_000 * MS;
        for (int step = 0; step < 3; step++) {
            store.evictIdle(t, 1);
        }
        store.saveVirtualTime(7);
        store.flushCache();
        // Then: the pass did not take "ab" for known, so the clock its times count in is still written
        assertThat(store.storedKeyCount()).isEqualTo(1);
        assertThat(store.loadVirtualTime()).isEqualTo(7L);
    }

    @Test
    void shouldStartAPassOverTheInnerStoreAtMostOncePerIntervalAfterARestart() {
        store.setVirtualNow(0);
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.put(k("b"), new KeyState(1_500 * MS, 0, 0, 0));
        store.flushCache();
        store.clearCache(); // as after a restart: no stored state has a slot
        long t = 1_000 * MS;
        assertThat(store.evictIdle(t, 10)).isEqualTo(1); // a whole pass removes "a"; "b" is not idle yet

        // "b" falls idle at 1.5 s, but the next pass over the inner store waits for the interval
        assertThat(store.evictIdle(t + 600 * MS, 10)).isZero();
        assertThat(store.storedKeyCount()).isEqualTo(1);
        assertThat(store.evictIdle(t + IdleSweeper.MIN_PASS_INTERVAL_NANOS, 10)).isEqualTo(1);
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldSweepTheStatesItWroteFromMemoryAtEveryCall() {
        store.setVirtualNow(0);
        store.evictIdle(0, 10); // a pass over the empty inner store: from now on every stored state has a slot
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.put(k("b"), new KeyState(300 * MS, 0, 0, 0));
        store.put(k("busy"), new KeyState(100 * MS, 1, 1, 1));
        store.flushCache();
        assertThat(store.storedKeyCount()).isEqualTo(3);

        // no pass interval to wait for: each state goes at the first call after it fell idle
        assertThat(store.evictIdle(200 * MS, 10)).isEqualTo(1);
        assertThat(store.evictIdle(400 * MS, 10)).isEqualTo(1);
        assertThat(store.evictIdle(10_000 * MS, 10)).isZero();
        assertThat(store.storedKeyCount()).isEqualTo(1);
        assertThat(store.get(k("a"))).isEqualTo(KeyState.ABSENT);
        assertThat(store.get(k("busy")).queuedRecords()).isEqualTo(1);
    }

    @Test
    void shouldGoBackToPassesOverTheInnerStoreOnceAStoredStateLeavesMemory() {
        store.setVirtualNow(0);
        store.evictIdle(0, 10);
        for (String key : new String[] {"a", "b", "c", "d", "e"}) {
            store.put(k(key), new KeyState(100 * MS, 0, 0, 0));
        }
        store.flushCache(); // only 3 clean slots stay in memory: two stored states have none

        assertThat(store.evictIdle(200 * MS, 10)).isZero(); // a pass is due a second after the last one only
        assertThat(store.evictIdle(IdleSweeper.MIN_PASS_INTERVAL_NANOS, 10)).isEqualTo(5);
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldNeverDropTheSlotItHandsOut() {
        // Given: three states kept in memory only (they fall idle within the slack), filling the three clean slots
        store.setVirtualNow(100);
        KeyState almostIdle = new KeyState(100 + KeyStateStore.PERSIST_SLACK_NANOS, 0, 0, 0);
        for (String key : new String[] {"a", "b", "c"}) {
            store.put(k(key), almostIdle);
        }
        store.flushCache();
        // When: a fourth key's slot is handed out (one slot over the limit, and the older ones may not go) and updated
        KeyState state = new KeyState(100 * MS, 0, 0, 0);
        store.entry(k("d")).update(state);
        // Then: the update is where the next lookup finds it, and the commit writes it
        assertThat(store.get(k("d"))).isEqualTo(state);
        store.flushCache();
        assertThat(inner.get(KeyStateKeys.of(k("d")))).isNotNull();
    }

    @Test
    void shouldPersistTheVirtualTimeAtCommitOnly() {
        assertThat(store.loadVirtualTime()).isNull();
        store.saveVirtualTime(42);
        assertThat(store.loadVirtualTime()).isNull();
        store.flushCache();
        assertThat(store.loadVirtualTime()).isEqualTo(42L);
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldNotWriteTheVirtualTimeOnceTheStoreIsKnownToHoldNoState() {
        // Given: a first sweep pass found the (fresh) store empty, so every stored state would have a slot
        store.setVirtualNow(0);
        store.evictIdle(0, 10);
        // When: commits with states that never outlive them
        store.saveVirtualTime(42);
        store.put(k("a"), new KeyState(0, 0, 0, 0));
        store.flushCache();
        // Then: nothing is written, not even the clock
        assertThat(inner.approximateNumEntries()).isZero();
        assertThat(store.loadVirtualTime()).isNull();
    }

    @Test
    void shouldWriteTheVirtualTimeWithEveryCommitWhileAStateIsStored() {
        store.setVirtualNow(0);
        store.evictIdle(0, 10);
        // A state that outlives the commit takes the clock with it
        store.saveVirtualTime(42);
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.flushCache();
        assertThat(store.loadVirtualTime()).isEqualTo(42L);
        // While it is stored, later commits move the clock even when no state changed
        store.saveVirtualTime(43);
        store.flushCache();
        assertThat(store.loadVirtualTime()).isEqualTo(43L);
        // Once the sweep removed it, the clock stays where it was: nothing stored depends on it
        store.setVirtualNow(200 * MS);
        assertThat(store.evictIdle(IdleSweeper.MIN_PASS_INTERVAL_NANOS, 10)).isEqualTo(1);
        store.saveVirtualTime(44);
        store.flushCache();
        assertThat(store.loadVirtualTime()).isEqualTo(43L);
        assertThat(store.storedKeyCount()).isZero();
    }

    @Test
    void shouldWriteTheVirtualTimeWhileRestoredStatesMayBeUnknownToTheSlots() {
        // Given: a state stored before a restart (the inner store keeps it; the layer forgets its slots)
        store.setVirtualNow(0);
        store.put(k("a"), new KeyState(100 * MS, 0, 0, 0));
        store.flushCache();
        store.clearCache();
        // When: a commit before any sweep pass
        store.saveVirtualTime(7);
        store.flushCache();
        // Then: the clock is written, for the state no slot knows of
        assertThat(store.loadVirtualTime()).isEqualTo(7L);
    }
}
