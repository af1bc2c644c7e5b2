package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The per-key {@link KeyState}s of a task and the task's virtual time, over a logged RocksDB store, with
 * an in-memory layer in front.
 *
 * <p>The layer is what keeps traffic under the rate free of state I/O: a key's state is read from RocksDB
 * once, then served and updated in memory; at commit only states that still matter are written, and a
 * state that has become idle (nothing queued, next record may leave at once) is dropped instead, because
 * forgetting it changes no decision. Idle states that did reach RocksDB are removed by
 * {@link #evictIdle}, a bounded sweep, so that millions of distinct keys cannot grow the state without
 * bound. The slots in memory are bounded per instance, not per store: see {@link StateCacheBudget}.
 *
 * <p>This class reads through and writes behind; the parts it combines each keep one concern: the slots in memory
 * ({@link KeyCache}), which of them are stored ({@link StoredSlots}), the sweep ({@link IdleSweeper}), the virtual
 * time ({@link StoredVirtualClock}), the full scans ({@link KeyStateScan}) and the store keys ({@link KeyStateKeys}).
 * The measurements behind its choices: docs/decisions/0002-key-state-cache.md.
 */
public final class KeyStateStore extends WriteBehindStore {

    /**
     * A commit does not write a state that falls idle within this much virtual time; it keeps it in memory only
     * (and {@link KeyCache} does not drop it while it matters). Such a state can matter only to a record that arrives
     * less than this long after the commit, and the changelog is read back only after a crash or a task's move to
     * another thread or instance, which takes longer than this; the virtual clock then also resumes from the time
     * saved at the last tick, not later. It pays because every record of one stream-thread iteration shares one
     * cached wall time, so the keys of the last iteration before a commit are all just short of idle.
     */
    static final long PERSIST_SLACK_NANOS = 1_000_000L;

    private final StoredVirtualClock clock;
    private final StoredSlots stored = new StoredSlots();
    private final KeyCache cache;
    private final IdleSweeper sweeper;
    private final KeyEntry.ChangeListener changes = this::firstChange;
    /** The changed states passed the store's share of the bound: to be written at the next safe point. */
    private boolean writeAheadDue;

    /** @param budget the bound on the slots in memory, shared with the instance's other key-state stores */
    public KeyStateStore(KeyValueStore<Bytes, byte[]> inner, StateCacheBudget budget) {
        super(inner);
        this.clock = new StoredVirtualClock(inner);
        this.cache = new KeyCache(budget, stored);
        this.sweeper = new IdleSweeper(inner, cache, stored);
    }

    /** The slot of {@code recordKey}, to read its state ({@link KeyState#ABSENT} for none) and update it. */
    public KeyEntry entry(byte[] recordKey) {
        Bytes key = Bytes.wrap(recordKey);
        KeyEntry slot = cache.get(key);
        return slot != null ? slot : readThrough(key, recordKey);
    }

    /** The state of {@code recordKey}; {@link KeyState#ABSENT} for a key with none. */
    public KeyState get(byte[] recordKey) {
        return entry(recordKey).state;
    }

    public void put(byte[] recordKey, KeyState state) {
        entry(recordKey).update(state);
    }

    /**
     * Tells the layer the task's virtual time, which decides which states are idle, and the wall-clock time, which
     * decides which keys' windows of releases still matter (see {@link KeyCache}).
     */
    public void setNow(long virtualNanos, long wallMs) {
        clock.setNow(virtualNanos);
        cache.setWallNow(wallMs);
    }

    /** Tells the layer the task's virtual time alone, for uses without windows of releases (tools, tests). */
    public void setVirtualNow(long nanos) {
        clock.setNow(nanos);
    }

    /** The persisted virtual time of this task, or null if it never ran. */
    public Long loadVirtualTime() {
        return clock.load();
    }

    /** Keeps the task's virtual time for the next commit (written only while states are stored). */
    public void saveVirtualTime(long nanos) {
        clock.save(nanos);
    }

    /**
     * Removes idle states from the inner store, looking at no more than {@code maxScanned} entries per call
     * and resuming where the previous call stopped, so the cost per call is bounded whatever the key count.
     * A pass over the whole store starts at most every {@link IdleSweeper#MIN_PASS_INTERVAL_NANOS}.
     *
     * @return how many states were removed
     */
    public int evictIdle(long nowNanos, int maxScanned) {
        return sweeper.evictIdle(nowNanos, maxScanned);
    }

    /**
     * What the stored states say is queued: a full scan, made once when a task starts so that the queue gauges
     * include what it restored; {@code waiting} sees each key with queued records, its state and band.
     */
    public QueuedTotals queuedTotals(KeyStateScan.Waiting waiting) {
        return KeyStateScan.queuedTotals(inner, waiting);
    }

    /** How many keys have a slot in memory, changed since the last commit or not. */
    public int cachedKeyCount() {
        return cache.size();
    }

    /** How many key states the inner store holds (a full scan: for tests and diagnostics, not the hot path). */
    public long storedKeyCount() {
        return KeyStateScan.count(inner);
    }

    /**
     * Lists a changed entry for the commit, and notes that a write ahead of the commit is due once the changed entries
     * pass the store's share of the bound: changed entries cannot be dropped, and writing them early keeps them
     * bounded however long the commit interval. The write itself waits for {@link #writeAhead}, which the task's
     * queues call where the schedule store can be written first ({@link TaskQueues#writeAheadIfDue}): a state written
     * alone could count records its schedule does not hold yet, or no longer count records it still holds.
     */
    private void firstChange(KeyEntry entry) {
        if (cache.addChanged(entry)) {
            writeAheadDue = true;
        }
    }

    /** Whether the changed states have passed the store's share of the bound since the last write. */
    public boolean writeAheadDue() {
        return writeAheadDue;
    }

    /** Writes the changed states now, ahead of the commit: see {@link #firstChange}. */
    public void writeAhead() {
        writeBuffer();
    }

    /** A key with no slot: its state is read from the inner store once, then kept in a new slot. */
    private KeyEntry readThrough(Bytes key, byte[] recordKey) {
        Bytes storeKey = KeyStateKeys.of(recordKey);
        byte[] raw = inner.get(storeKey);
        KeyEntry slot = new KeyEntry(storeKey, raw == null ? KeyState.ABSENT : KeyStateCodec.decode(raw), changes);
        if (raw != null) {
            slot.queuedBand = KeyStateCodec.band(raw);
            stored.markStored(slot);
        }
        cache.add(key, slot, clock.now());
        return slot;
    }

    /**
     * One write batch for the changed states and the virtual time (see {@link StoredVirtualClock} for when the time
     * is written); an idle state is dropped (a null, if stored).
     */
    @Override
    protected void writeBuffer() {
        writeAheadDue = false;
        long now = clock.now();
        List<KeyEntry> changed = cache.changed();
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(changed.size() + 1);
        for (KeyEntry slot : changed) {
            slot.dirty = false;
            addToCommit(slot, now, batch);
        }
        cache.clearChanged();
        clock.addTo(batch, stored.mayHoldStates());
        if (!batch.isEmpty()) {
            inner.putAll(batch);
        }
        cache.trimAtCommit(now);
    }

    /** What a commit does with one changed slot's state: delete it, keep it in memory only, or write it. */
    private void addToCommit(KeyEntry slot, long now, List<KeyValue<Bytes, byte[]>> batch) {
        if (slot.state.isIdleAt(now)) {
            if (slot.inInner) {
                batch.add(KeyValue.pair(slot.key, null));
                stored.markNotStored(slot);
            }
            slot.state = KeyState.ABSENT;
        } else if (slot.state.isIdleAt(LeakyBucket.saturatedAdd(now, PERSIST_SLACK_NANOS))) {
            // Idle within the slack: kept in memory, where it still decides the key's next record, but not
            // written. A stored older state of the key must go: it may still count queued records.
            if (slot.inInner) {
                batch.add(KeyValue.pair(slot.key, null));
                stored.markNotStored(slot);
            }
        } else {
            batch.add(KeyValue.pair(slot.key, KeyStateCodec.encode(slot.state, slot.queuedBand)));
            stored.markStored(slot);
        }
    }

    @Override
    protected void discardBuffer() {
        writeAheadDue = false;
        cache.clear(); // the slots' share of the bound goes back to the instance's other stores
        stored.reset(); // the inner store holds what was restored, which no slot knows of
        clock.discard();
        sweeper.reset();
    }
}
