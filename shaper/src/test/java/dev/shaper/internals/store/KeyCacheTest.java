package dev.shaper.internals.store;

import static dev.shaper.internals.store.KeyStateFixtures.MS;
import static dev.shaper.internals.store.KeyStateFixtures.k;
import static dev.shaper.internals.store.KeyStateFixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KeyCacheTest {

    private static final long NOW = 0;
    /** Still matters at {@link #NOW}, beyond the slack. */
    private static final KeyState LIVE = new KeyState(100 * MS, 0, 0, 0);

    private StateCacheBudget budget;
    private StoredSlots stored;
    private KeyCache cache;

    @BeforeEach
    void setUp() {
        budget = new StateCacheBudget(2);
        stored = new StoredSlots();
        cache = new KeyCache(budget, stored);
    }

    private KeyEntry add(String key, KeyState state) {
        KeyEntry slot = slot(key, state);
        cache.add(Bytes.wrap(k(key)), slot, NOW);
        return slot;
    }

    /** Marks the slot changed, as its update does; returns whether the cache asks for a write ahead. */
    private boolean change(KeyEntry slot) {
        slot.dirty = true;
        return cache.addChanged(slot);
    }

    private KeyEntry get(String key) {
        return cache.get(Bytes.wrap(k(key)));
    }

    @Test
    void shouldDropTheLeastRecentlyUsedCleanSlotOverTheBound() {
        add("a", KeyState.ABSENT);
        add("b", KeyState.ABSENT);
        get("a"); // a use: "b" is now the least recently used
        add("c", KeyState.ABSENT);
        assertThat(get("b")).isNull();
        assertThat(get("a")).isNotNull();
        assertThat(cache.size()).isEqualTo(2);
        assertThat(budget.cachedKeys()).isEqualTo(2);
    }

    @Test
    void shouldKeepChangedSlotsStatesInMemoryOnlyAndTheSlotItHandsOut() {
        // Given: a changed slot and a live one whose state is in memory only, filling the bound
        KeyEntry changed = add("changed", KeyState.ABSENT);
        change(changed);
        add("memory-only", new KeyState(NOW + KeyStateStore.PERSIST_SLACK_NANOS, 0, 0, 0));
        // When: a third slot is handed out, over the bound, with nothing else to drop
        KeyEntry handedOut = add("new", KeyState.ABSENT);
        // Then: all three stay, and the instance is over its bound until a commit
        assertThat(get("changed")).isSameAs(changed);
        assertThat(get("memory-only")).isNotNull();
        assertThat(get("new")).isSameAs(handedOut);
        assertThat(budget.cachedKeys()).isEqualTo(3);
    }

    @Test
    void shouldDropAStoredSlotWhateverItsStateAndSayThatItsStateIsNoLongerTracked() {
        stored.passStarted();
        stored.passEnded(false);
        KeyEntry storedLive = add("stored", LIVE);
        stored.markStored(storedLive);
        add("b", LIVE);
        add("c", KeyState.ABSENT);
        assertThat(get("stored")).isNull(); // the inner store gives its state back
        assertThat(stored.count()).isZero();
        assertThat(stored.allTracked()).isFalse();
    }

    @Test
    void shouldAskForAWriteAheadOnceTheChangedSlotsPassTheShare() {
        assertThat(change(add("a", LIVE))).isFalse();
        assertThat(change(add("b", LIVE))).isFalse();
        assertThat(change(add("c", LIVE))).isTrue();
        assertThat(cache.changed()).hasSize(3);
        cache.clearChanged();
        assertThat(cache.changed()).isEmpty();
    }

    @Test
    void shouldTrimToTheBoundAtACommitOnceTheChangesAreClean() {
        for (String key : new String[] {"a", "b", "c"}) {
            change(add(key, LIVE));
        }
        assertThat(cache.size()).isEqualTo(3);
        // As a commit does: the changes are written, so their slots are clean and stored
        for (KeyEntry slot : cache.changed()) {
            slot.dirty = false;
            stored.markStored(slot);
        }
        cache.clearChanged();
        cache.trimAtCommit(NOW);
        assertThat(cache.size()).isEqualTo(2);
        assertThat(get("a")).isNull();
    }

    @Test
    void shouldGiveItsShareBackWhenCleared() {
        add("a", KeyState.ABSENT);
        change(add("b", LIVE));
        cache.clear();
        assertThat(cache.size()).isZero();
        assertThat(cache.changed()).isEmpty();
        assertThat(budget.cachedKeys()).isZero();
    }
}
