package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Removes the states that fell idle in a key-state store's inner store, a bounded step per call, so that millions
 * of distinct keys cannot grow the state without bound.
 *
 * <p>Two ways: while every stored state has a slot ({@link StoredSlots#allTracked()}), a step looks at the stored
 * slots, oldest first, and RocksDB is only written to. Otherwise a step goes on with a pass over the inner store,
 * resuming where the last one stopped; passes start at most every {@link #MIN_PASS_INTERVAL_NANOS}, and a pass that
 * met only states with a slot switches back to the first way.
 */
final class IdleSweeper {

    /**
     * The least virtual time between the starts of two passes over the inner store: a pass iterates RocksDB's
     * tombstones too, which costs the stream thread dearly when a small store is passed over at every tick. An idle
     * state waits at most this long (plus the pass) for the sweep. Figures: docs/decisions/0002-key-state-cache.md.
     */
    static final long MIN_PASS_INTERVAL_NANOS = 1_000_000_000L;

    private final KeyValueStore<Bytes, byte[]> inner;
    private final KeyCache cache;
    private final StoredSlots stored;
    /** Where the pass under way resumes; null between passes. */
    private Bytes cursor;
    /** When the next pass may start. */
    private long nextPassNanos = Long.MIN_VALUE;
    /** Whether the pass under way met a live state that has no slot. */
    private boolean passSawUntracked;

    IdleSweeper(KeyValueStore<Bytes, byte[]> inner, KeyCache cache, StoredSlots stored) {
        this.inner = inner;
        this.cache = cache;
        this.stored = stored;
    }

    /**
     * Removes idle states, looking at no more than {@code maxScanned} entries or slots.
     *
     * @return how many states were removed
     */
    int evictIdle(long nowNanos, int maxScanned) {
        if (cursor == null && stored.allTracked()) {
            return sweepStoredSlots(nowNanos, maxScanned);
        }
        if (cursor == null && nowNanos < nextPassNanos) {
            return 0;
        }
        if (cursor == null) {
            stored.passStarted();
            passSawUntracked = false;
        }
        return continuePass(nowNanos, maxScanned);
    }

    /** Forgets the pass under way and the interval: the inner store holds what was restored. */
    void reset() {
        cursor = null;
        nextPassNanos = Long.MIN_VALUE;
    }

    /**
     * The sweep while every stored state has a slot: looks at up to {@code maxScanned} stored slots, oldest first,
     * and deletes the idle ones; the others go to the back of the line.
     */
    private int sweepStoredSlots(long nowNanos, int maxScanned) {
        List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>();
        List<KeyEntry> stillStored = new ArrayList<>();
        Iterator<KeyEntry> it = stored.sweepOrder();
        for (int scanned = 0; scanned < maxScanned && it.hasNext(); scanned++) {
            KeyEntry slot = it.next();
            it.remove();
            if (!slot.inInner || slot.dirty) {
                continue; // dropped meanwhile, or the next commit writes or drops it anyway (and re-adds it)
            }
            if (slot.state.isIdleAt(nowNanos)) {
                deletes.add(KeyValue.pair(slot.key, null));
                forget(slot);
            } else {
                stillStored.add(slot);
            }
        }
        stored.requeue(stillStored);
        if (!deletes.isEmpty()) {
            inner.putAll(deletes);
        }
        return deletes.size();
    }

    /** One step of the pass over the inner store: up to {@code maxScanned} entries from the cursor on. */
    private int continuePass(long nowNanos, int maxScanned) {
        List<Bytes> idle = new ArrayList<>();
        List<KeyEntry> idleSlots = new ArrayList<>();
        Bytes last = null;
        boolean exhausted;
        try (KeyValueIterator<Bytes, byte[]> it = cursor == null ? inner.all() : inner.range(cursor, null)) {
            int scanned = 0;
            while (it.hasNext() && scanned < maxScanned) {
                KeyValue<Bytes, byte[]> entry = it.next();
                scanned++;
                last = entry.key;
                collectIfIdle(entry, nowNanos, idle, idleSlots);
            }
            exhausted = !it.hasNext();
        }
        if (!idle.isEmpty()) {
            List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>(idle.size());
            idle.forEach(key -> deletes.add(KeyValue.pair(key, null)));
            inner.putAll(deletes);
        }
        for (KeyEntry slot : idleSlots) {
            forget(slot);
        }
        cursor = exhausted || last == null ? null : KeyStateKeys.successor(last);
        if (cursor == null) {
            nextPassNanos = nowNanos + MIN_PASS_INTERVAL_NANOS;
            stored.passEnded(passSawUntracked);
        }
        return idle.size();
    }

    /** Adds the entry's key to {@code idle} (and its slot, if it has one, to {@code idleSlots}) if its state is idle. */
    private void collectIfIdle(KeyValue<Bytes, byte[]> entry, long nowNanos, List<Bytes> idle, List<KeyEntry> idleSlots) {
        if (KeyStateKeys.isClock(entry.key)) {
            return;
        }
        KeyEntry slot = cache.get(KeyStateKeys.recordKey(entry.key));
        if (slot != null && slot.dirty) {
            return; // the next commit writes or drops this state anyway
        }
        KeyState state = slot != null ? slot.state : KeyStateCodec.decode(entry.value);
        if (state.isIdleAt(nowNanos)) {
            idle.add(entry.key);
            if (slot != null) {
                idleSlots.add(slot);
            }
        } else if (slot == null) {
            passSawUntracked = true;
        }
    }

    /** A slot whose state the sweep deleted: its key has no state any more. */
    private void forget(KeyEntry slot) {
        stored.markNotStored(slot);
        slot.state = KeyState.ABSENT;
    }
}
