package dev.shaper.internals.store;

import static dev.shaper.internals.store.KeyStateFixtures.MS;
import static dev.shaper.internals.store.KeyStateFixtures.k;
import static dev.shaper.internals.store.KeyStateFixtures.putStored;
import static dev.shaper.internals.store.KeyStateFixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sweep on its own: the inner store and the slots are set up by hand, as a commit or a restore leaves them. */
class IdleSweeperTest {

    private static final KeyState IDLE_BY_1S = new KeyState(100 * MS, 0, 0, 0);
    private static final KeyState QUEUED = new KeyState(100 * MS, 1, 1, 1);
    private static final long T = 1_000 * MS;

    private KeyValueStore<Bytes, byte[]> inner;
    private StoredSlots stored;
    private KeyCache cache;
    private IdleSweeper sweeper;

    @BeforeEach
    void setUp() {
        inner = KeyStateFixtures.innerStore("keys");
        stored = new StoredSlots();
        cache = new KeyCache(new StateCacheBudget(100), stored);
        sweeper = new IdleSweeper(inner, cache, stored);
    }

    /** A slot in the cache for a state the inner store holds. */
    private KeyEntry storedSlot(String key, KeyState state) {
        putStored(inner, key, state);
        KeyEntry slot = slot(key, state);
        stored.markStored(slot);
        cache.add(Bytes.wrap(k(key)), slot, 0);
        return slot;
    }

    private long storedCount() {
        return KeyStateScan.count(inner);
    }

    @Test
    void shouldPassOverTheInnerStoreLeavingTheClockAndChangedSlotsAlone() {
        inner.put(KeyStateKeys.CLOCK, StoredVirtualClock.encode(5));
        putStored(inner, "untracked-idle", IDLE_BY_1S);
        KeyEntry changed = storedSlot("changed", IDLE_BY_1S);
        changed.dirty = true;
        KeyEntry clean = storedSlot("clean", IDLE_BY_1S);

        assertThat(sweeper.evictIdle(T, 10)).isEqualTo(2);

        assertThat(inner.get(KeyStateKeys.CLOCK)).isNotNull();
        assertThat(inner.get(KeyStateKeys.of(k("changed")))).isNotNull(); // the next commit writes or drops it
        assertThat(clean.state).isEqualTo(KeyState.ABSENT);
        assertThat(clean.inInner).isFalse();
        assertThat(storedCount()).isEqualTo(1);
    }

    @Test
    void shouldSwitchToTheStoredSlotsOnlyAfterAPassThatMetNoLiveStateWithoutASlot() {
        // A restored live state with no slot: the pass cannot take the slots for the whole story
        putStored(inner, "untracked-queued", QUEUED);
        sweeper.evictIdle(T, 10);
        assertThat(stored.allTracked()).isFalse();
        // Once it has a slot, the next pass (an interval later) finds every stored state known
        storedSlot("untracked-queued", QUEUED);
        assertThat(sweeper.evictIdle(T + 1, 10)).isZero(); // the interval has not passed
        sweeper.evictIdle(T + IdleSweeper.MIN_PASS_INTERVAL_NANOS, 10);
        assertThat(stored.allTracked()).isTrue();
    }

    @Test
    void shouldStayOnPassesWhenAStoredSlotLeftMemoryDuringThePass() {
        KeyEntry leaving = storedSlot("a", QUEUED);
        storedSlot("b", QUEUED);
        sweeper.evictIdle(T, 1); // one step: the pass is under way
        stored.leftMemory(leaving);
        sweeper.evictIdle(T, 10);
        assertThat(stored.allTracked()).isFalse();
    }

    @Test
    void shouldSweepTheStoredSlotsOldestFirstWithoutIteratingTheInnerStore() {
        stored.passStarted();
        stored.passEnded(false); // every stored state has a slot
        KeyEntry live = storedSlot("live", QUEUED);
        KeyEntry changed = storedSlot("changed", IDLE_BY_1S);
        changed.dirty = true;
        KeyEntry idle = storedSlot("idle", IDLE_BY_1S);
        // A state no slot knows of (which a tracked store cannot hold) shows that the inner store is not iterated
        putStored(inner, "not-looked-at", IDLE_BY_1S);

        assertThat(sweeper.evictIdle(T, 2)).isZero(); // "live" goes to the back, "changed" leaves the line
        assertThat(sweeper.evictIdle(T, 2)).isEqualTo(1); // "idle", then "live" again

        assertThat(idle.state).isEqualTo(KeyState.ABSENT);
        assertThat(idle.inInner).isFalse();
        assertThat(stored.count()).isEqualTo(2); // "live" and "changed"
        assertThat(stored.sweepOrder()).toIterable().containsExactly(live);
        assertThat(inner.get(KeyStateKeys.of(k("not-looked-at")))).isNotNull();
    }
}
