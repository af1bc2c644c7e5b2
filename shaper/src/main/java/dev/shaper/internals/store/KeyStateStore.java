package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
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
 * <p>Store keys: {@code 0x01 + record key} for key states; the single key {@code 0x00} holds the virtual time.
 */
public final class KeyStateStore extends WriteBehindStore {

    /**
     * The least virtual time between the starts of two sweep passes over the store. A pass over a small store
     * finishes in one tick, and starting the next at once made every tick iterate the whole store, and with it
     * every tombstone RocksDB had not compacted yet (the deletes of states that fell idle): in the unqueued
     * benchmark that native iteration was about a tenth of the stream thread's time. An idle state now waits at
     * most this long (plus the pass) for the sweep; the state stays bounded.
     */
    static final long MIN_PASS_INTERVAL_NANOS = 1_000_000_000L;

    /**
     * A commit does not persist a state that falls idle within this much virtual time; it keeps it in memory only
     * (and {@link #dropCleanSlots} does not drop it while it matters). Such a state can matter only to a record
     * that arrives less than this long after the commit, and the changelog is read back only after a crash or a
     * task's move to another thread or instance, which takes longer than this; the virtual clock then also
     * resumes from the time saved at the last tick, not later. Why it pays: every record of one stream-thread
     * iteration is processed at the same cached wall time, so the keys of the last iteration before a commit
     * are all one nanosecond (at rates far above the traffic) to one record interval short of idle; persisting
     * them cost a RocksDB write and a changelog record each, and a sweep to delete them again, about 6 % of the
     * stream thread with nothing queued.
     */
    static final long PERSIST_SLACK_NANOS = 1_000_000L;

    private static final byte KEY_STATE_PREFIX = 1;
    private static final Bytes CLOCK_KEY = Bytes.wrap(new byte[] {0});

    /**
     * One key's state as the layer knows it, handed to the processor so that reading and updating a key
     * costs one lookup. Valid until the next call of this store's other methods.
     */
    public final class Slot {
        /** The key in the inner store (with its prefix). */
        private final Bytes key;
        private KeyState state;
        private boolean dirty;
        /** Whether the inner store holds an entry for this key (so dropping the state needs a delete). */
        private boolean inInner;
        /** What another stage keeps in memory for this key; see {@link #attachment()}. */
        private Object attachment;

        private Slot(Bytes key, KeyState state) {
            this.key = key;
            this.state = state;
        }

        public KeyState state() {
            return state;
        }

        /**
         * What another stage of the task keeps for this key beside its state, so that it need not look the key
         * up in a map of its own (admission keeps the key's bucket here). In memory only: never persisted, and
         * gone when the slot is dropped, so a user must be able to find it again.
         */
        public Object attachment() {
            return attachment;
        }

        public void attach(Object attachment) {
            this.attachment = attachment;
        }

        public void update(KeyState newState) {
            state = newState;
            if (!dirty) {
                dirty = true;
                dirtySlots.add(this);
                // Written ahead of the commit once past the store's share of the bound: changed slots cannot be
                // dropped, and this is what keeps them bounded however long the commit interval.
                if (dirtySlots.size() > budget.share()) {
                    writeBuffer();
                }
            }
        }
    }

    private final StateCacheBudget budget;
    /** This store's slots in {@link #budget}: every slot added to or removed from {@link #slots} is counted. */
    private final StateCacheBudget.Share cache;
    /**
     * By record key (no copy, no prefix: the hot path builds no store key). Access-ordered, so the least
     * recently used clean slots are the first to go.
     */
    private final LinkedHashMap<Bytes, Slot> slots = new LinkedHashMap<>(1024, 0.75f, true);
    /** The slots changed since the last commit: a commit's cost follows the changes, not the cache size. */
    private final List<Slot> dirtySlots = new ArrayList<>();
    private long virtualNowNanos = Long.MIN_VALUE;
    private Long pendingClock;
    /**
     * How many slots in {@link #slots} have their state in the inner store. With {@link #untracked} false, zero
     * means the inner store holds no key state at all, and then a commit need not write the virtual time.
     */
    private int storedSlotCount;
    private Bytes evictionCursor;
    /** When the next sweep pass may start (see {@link #MIN_PASS_INTERVAL_NANOS}). */
    private long nextPassNanos = Long.MIN_VALUE;
    /**
     * Slots whose state the inner store holds and that were clean when added: the only states that can fall
     * idle in the inner store while every stored state has a slot. Entries that have since become dirty or been
     * dropped are skipped and removed by the sweep.
     */
    private final LinkedHashSet<Slot> storedSlots = new LinkedHashSet<>();
    /**
     * Whether the inner store may hold states that no slot knows of: after a restore, or once a stored slot
     * left memory. Only then must the sweep iterate RocksDB, tombstones included; otherwise it looks at
     * {@link #storedSlots}.
     */
    private boolean untracked = true;
    /** Counts the events that set {@link #untracked}, so that a pass knows whether one happened meanwhile. */
    private long untrackedEvents;
    private long passStartUntrackedEvents;
    private boolean passSawUntracked;

    /** @param budget the bound on the slots in memory, shared with the instance's other key-state stores */
    public KeyStateStore(KeyValueStore<Bytes, byte[]> inner, StateCacheBudget budget) {
        super(inner);
        this.budget = budget;
        this.cache = budget.open();
    }

    /** The slot of {@code recordKey}, to read its state ({@link KeyState#ABSENT} for none) and update it. */
    public Slot slot(byte[] recordKey) {
        Bytes key = Bytes.wrap(recordKey);
        Slot slot = slots.get(key);
        if (slot == null) {
            Bytes stored = storeKey(recordKey);
            byte[] raw = inner.get(stored);
            slot = new Slot(stored, raw == null ? KeyState.ABSENT : KeyStateCodec.decode(raw));
            slots.put(key, slot);
            if (raw != null) {
                markStored(slot);
            }
            long over = cache.add();
            if (over > 0) {
                dropCleanSlots(over, slot);
                cache.reportShortfall(over);
            }
        }
        return slot;
    }

    /** The state of {@code recordKey}; {@link KeyState#ABSENT} for a key with none. */
    public KeyState get(byte[] recordKey) {
        return slot(recordKey).state;
    }

    public void put(byte[] recordKey, KeyState state) {
        slot(recordKey).update(state);
    }

    /** Tells the layer the task's virtual time, which decides which states are idle. */
    public void setVirtualNow(long nanos) {
        virtualNowNanos = nanos;
    }

    /** The persisted virtual time of this task, or null if it never ran. */
    public Long loadVirtualTime() {
        byte[] raw = inner.get(CLOCK_KEY);
        return raw == null ? null : ByteBuffer.wrap(raw).getLong();
    }

    public void saveVirtualTime(long nanos) {
        pendingClock = nanos;
    }

    /**
     * Removes idle states from the inner store, looking at no more than {@code maxScanned} entries per call
     * and resuming where the previous call stopped, so the cost per call is bounded whatever the key count.
     * A pass over the whole store starts at most every {@link #MIN_PASS_INTERVAL_NANOS}.
     *
     * @return how many states were removed
     */
    public int evictIdle(long nowNanos, int maxScanned) {
        if (evictionCursor == null && !untracked) {
            return evictIdleSlots(nowNanos, maxScanned);
        }
        if (evictionCursor == null && nowNanos < nextPassNanos) {
            return 0;
        }
        if (evictionCursor == null) {
            passStartUntrackedEvents = untrackedEvents;
            passSawUntracked = false;
        }
        List<Bytes> idle = new ArrayList<>();
        List<Slot> idleSlots = new ArrayList<>();
        Bytes last = null;
        boolean exhausted;
        try (KeyValueIterator<Bytes, byte[]> it = evictionCursor == null
                ? inner.all() : inner.range(evictionCursor, null)) {
            int scanned = 0;
            while (it.hasNext() && scanned < maxScanned) {
                KeyValue<Bytes, byte[]> entry = it.next();
                scanned++;
                last = entry.key;
                if (entry.key.equals(CLOCK_KEY)) {
                    continue;
                }
                Slot slot = slots.get(recordKey(entry.key));
                if (slot != null && slot.dirty) {
                    continue; // the next commit writes or drops this state anyway
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
            exhausted = !it.hasNext();
        }
        if (!idle.isEmpty()) {
            List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>(idle.size());
            idle.forEach(key -> deletes.add(KeyValue.pair(key, null)));
            inner.putAll(deletes);
        }
        for (Slot slot : idleSlots) {
            markNotStored(slot);
            slot.state = KeyState.ABSENT;
        }
        evictionCursor = exhausted || last == null ? null : successor(last);
        if (evictionCursor == null) {
            nextPassNanos = nowNanos + MIN_PASS_INTERVAL_NANOS;
            // A whole pass met only states that have a slot (or removed them): the slots know every stored state.
            untracked = passSawUntracked || untrackedEvents != passStartUntrackedEvents;
        }
        return idle.size();
    }

    /** Records and stored bytes queued in one task. */
    public record Totals(long records, long bytes) {
    }

    /**
     * What the stored states say is queued: a full scan, made once when a task starts so that the queue gauges
     * include what it restored. Only keys with something queued or a recent past are stored, not every key seen.
     */
    public Totals queuedTotals() {
        long records = 0;
        long bytes = 0;
        try (KeyValueIterator<Bytes, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> entry = it.next();
                if (!entry.key.equals(CLOCK_KEY)) {
                    KeyState state = KeyStateCodec.decode(entry.value);
                    records += state.queuedRecords();
                    bytes += state.queuedBytes();
                }
            }
        }
        return new Totals(records, bytes);
    }

    /**
     * The sweep while every stored state has a slot: looks at up to {@code maxScanned} stored slots, oldest
     * first, and deletes the idle ones; the others go to the back of the line.
     */
    private int evictIdleSlots(long nowNanos, int maxScanned) {
        List<KeyValue<Bytes, byte[]>> deletes = new ArrayList<>();
        List<Slot> stillStored = new ArrayList<>();
        Iterator<Slot> it = storedSlots.iterator();
        for (int scanned = 0; scanned < maxScanned && it.hasNext(); scanned++) {
            Slot slot = it.next();
            it.remove();
            if (!slot.inInner || slot.dirty) {
                continue; // dropped meanwhile, or the next commit writes or drops it anyway (and re-adds it)
            }
            if (slot.state.isIdleAt(nowNanos)) {
                deletes.add(KeyValue.pair(slot.key, null));
                markNotStored(slot);
                slot.state = KeyState.ABSENT;
            } else {
                stillStored.add(slot);
            }
        }
        storedSlots.addAll(stillStored);
        if (!deletes.isEmpty()) {
            inner.putAll(deletes);
        }
        return deletes.size();
    }

    /** How many keys have a slot in memory, changed since the last commit or not. */
    public int cachedKeyCount() {
        return slots.size();
    }

    /** How many key states the inner store holds (a full scan: for tests and diagnostics, not the hot path). */
    public long storedKeyCount() {
        long count = 0;
        try (KeyValueIterator<Bytes, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                if (!it.next().key.equals(CLOCK_KEY)) {
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * At a commit: drops what the instance holds over its bound (the changes just written are clean now, so they may
     * go), or at least what this store owes stores that lacked room (see {@link StateCacheBudget}).
     */
    private void trimAtCommit() {
        long over = cache.over();
        long count = Math.max(over, cache.claimGiveBack());
        if (count > 0) {
            dropCleanSlots(count, null);
        }
        if (over > 0) {
            cache.reportShortfall(over);
        }
    }

    /**
     * Drops up to {@code count} of the least recently used clean slots. Not a slot whose state lives in memory only and
     * still matters (one a commit did not write because it falls idle within {@link #PERSIST_SLACK_NANOS}): the
     * inner store could not give it back, and forgetting it would let its key's next record leave early. Nor
     * {@code handedOut}, the slot {@link #slot} is about to return: its caller will update it, and an update of a
     * slot no longer in memory would be lost until the commit and then written behind the layer's back.
     */
    private void dropCleanSlots(long count, Slot handedOut) {
        long dropped = 0;
        Iterator<Slot> it = slots.values().iterator();
        while (dropped < count && it.hasNext()) {
            Slot slot = it.next();
            if (slot != handedOut && !slot.dirty && (slot.inInner || slot.state.isIdleAt(virtualNowNanos))) {
                it.remove();
                dropped++;
                if (slot.inInner) {
                    storedSlots.remove(slot);
                    storedSlotCount--;
                    untracked = true;
                    untrackedEvents++;
                }
            }
        }
        cache.remove(dropped);
    }

    /**
     * One write batch for the changed states and the clock; an idle state is dropped (a null, if stored). The
     * virtual time is written only while the inner store may hold a key state: it means something only beside
     * stored states (their times are virtual), and a queued record always has one. So traffic that never waits
     * across a commit leaves the store, its changelog and the commit's transaction untouched. A clock left
     * behind from earlier is harmless: with no state beside it, any start time decides alike.
     */
    @Override
    protected void writeBuffer() {
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(dirtySlots.size() + 1);
        for (Slot slot : dirtySlots) {
            slot.dirty = false;
            if (slot.state.isIdleAt(virtualNowNanos)) {
                if (slot.inInner) {
                    batch.add(KeyValue.pair(slot.key, null));
                    markNotStored(slot);
                }
                slot.state = KeyState.ABSENT;
            } else if (slot.state.isIdleAt(LeakyBucket.saturatedAdd(virtualNowNanos, PERSIST_SLACK_NANOS))) {
                // Idle within the slack: kept in memory, where it still decides the key's next record, but not
                // written. A stored older state of the key must go: it may still count queued records.
                if (slot.inInner) {
                    batch.add(KeyValue.pair(slot.key, null));
                    markNotStored(slot);
                }
            } else {
                batch.add(KeyValue.pair(slot.key, KeyStateCodec.encode(slot.state)));
                markStored(slot);
            }
        }
        dirtySlots.clear();
        if (pendingClock != null && (untracked || storedSlotCount > 0)) {
            batch.add(KeyValue.pair(CLOCK_KEY, ByteBuffer.allocate(Long.BYTES).putLong(pendingClock).array()));
            pendingClock = null;
        }
        if (!batch.isEmpty()) {
            inner.putAll(batch);
        }
        trimAtCommit();
    }

    /**
     * The slot's state is in the inner store (again): the sweep looks at it, and {@link #storedSlotCount} counts it
     * once. Every change of {@code inInner} goes through here or {@link #markNotStored}, and a stored slot that
     * {@link #dropCleanSlots} drops from memory leaves the count with it, so the count stays exact.
     */
    private void markStored(Slot slot) {
        if (!slot.inInner) {
            slot.inInner = true;
            storedSlotCount++;
        }
        storedSlots.add(slot);
    }

    /** The slot's state has left the inner store. */
    private void markNotStored(Slot slot) {
        if (slot.inInner) {
            slot.inInner = false;
            storedSlotCount--;
        }
    }

    @Override
    protected void discardBuffer() {
        slots.clear();
        cache.close(); // the slots' share of the bound goes back to the instance's other stores
        storedSlotCount = 0;
        dirtySlots.clear();
        pendingClock = null;
        evictionCursor = null;
        nextPassNanos = Long.MIN_VALUE;
        storedSlots.clear();
        untracked = true; // the inner store holds what was restored, which no slot knows of
        untrackedEvents++;
    }

    /** The inner store's key for the task's virtual time. */
    static Bytes clockKey() {
        return CLOCK_KEY;
    }

    /**
     * The least key after {@code key}, where the next step resumes: {@code key} and a zero byte. Not
     * {@link Bytes#increment}, which also skips every longer key that starts with {@code key} ("ab" after "a").
     */
    private static Bytes successor(Bytes key) {
        return Bytes.wrap(java.util.Arrays.copyOf(key.get(), key.get().length + 1));
    }

    private static Bytes recordKey(Bytes storeKey) {
        byte[] raw = storeKey.get();
        return Bytes.wrap(java.util.Arrays.copyOfRange(raw, 1, raw.length));
    }

    /** The inner store's key for the state of {@code recordKey}. */
    static Bytes storeKey(byte[] recordKey) {
        byte[] key = new byte[recordKey.length + 1];
        key[0] = KEY_STATE_PREFIX;
        System.arraycopy(recordKey, 0, key, 1, recordKey.length);
        return Bytes.wrap(key);
    }
}
