package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The queued records of a task, in departure order (see {@link ScheduleKeys}), over a logged RocksDB store.
 *
 * <p>Every schedule key is new when it is written (dues of a key only grow), so a record that is queued
 * and released within one commit interval is simply dropped from the buffer: no RocksDB write, no
 * changelog record, no tombstone.
 */
public final class ScheduleStore extends WriteBehindStore {

    /**
     * Unsigned lexicographic order, as RocksDB's: the same order as {@link Bytes#compareTo}, but through the JDK's
     * vectorised {@link Arrays#compareUnsigned}, which compares the 8-byte due prefix in one step instead of a
     * byte at a time (the buffer's tree compares keys on every put and every release).
     */
    private static final Comparator<Bytes> ORDER = (a, b) -> Arrays.compareUnsigned(a.get(), b.get());

    private final int maxBuffered;
    /** Entries queued since the last commit, in departure order. */
    private final TreeMap<Bytes, byte[]> buffer = new TreeMap<>(ORDER);
    /**
     * Entries of the inner store released since the last commit. A hash set, not markers in the tree: the scan
     * only asks whether a stored entry is gone, and the commit writes the tombstones in any order.
     */
    private final Set<Bytes> removed = new HashSet<>();

    public ScheduleStore(KeyValueStore<Bytes, byte[]> inner, int maxBuffered) {
        super(inner);
        this.maxBuffered = maxBuffered;
    }

    public void put(Bytes scheduleKey, byte[] queuedRecord) {
        buffer.put(scheduleKey, queuedRecord);
        writeBufferIfFull();
    }

    public void delete(Bytes scheduleKey) {
        // One tree walk in the common case: the entry is only buffered (queued and released within one commit).
        if (buffer.remove(scheduleKey) == null) {
            removed.add(scheduleKey);
            writeBufferIfFull();
        }
    }

    /**
     * Shows {@code visitor} the entries from {@code from} to {@code to} (both inclusive) in key order, until
     * it returns false. The visitor must not change this store; it may collect what it wants to change.
     *
     * @return the key of the entry the visitor stopped at, or null if the range was exhausted
     */
    public Bytes scan(Bytes from, Bytes to, Predicate<KeyValue<Bytes, byte[]>> visitor) {
        NavigableMap<Bytes, byte[]> buffered = buffer.subMap(from, true, to, true);
        Iterator<Map.Entry<Bytes, byte[]>> mem = buffered.entrySet().iterator();
        try (KeyValueIterator<Bytes, byte[]> disk = inner.range(from, to)) {
            Map.Entry<Bytes, byte[]> m = next(mem);
            KeyValue<Bytes, byte[]> d = nextStored(disk);
            while (m != null || d != null) {
                KeyValue<Bytes, byte[]> candidate;
                int cmp = m == null ? 1 : d == null ? -1 : ORDER.compare(m.getKey(), d.key);
                if (cmp <= 0) {
                    candidate = KeyValue.pair(m.getKey(), m.getValue());
                    m = next(mem);
                    if (cmp == 0) { // a buffered entry replaces a stored one of the same key
                        d = nextStored(disk);
                    }
                } else {
                    candidate = d;
                    d = nextStored(disk);
                }
                if (!visitor.test(candidate)) {
                    return candidate.key;
                }
            }
        }
        return null;
    }

    private static Map.Entry<Bytes, byte[]> next(Iterator<Map.Entry<Bytes, byte[]>> it) {
        return it.hasNext() ? it.next() : null;
    }

    /** The next stored entry that was not released since the last commit. */
    private KeyValue<Bytes, byte[]> nextStored(KeyValueIterator<Bytes, byte[]> disk) {
        while (disk.hasNext()) {
            KeyValue<Bytes, byte[]> entry = disk.next();
            if (removed.isEmpty() || !removed.contains(entry.key)) {
                return entry;
            }
        }
        return null;
    }

    private void writeBufferIfFull() {
        if (buffer.size() + removed.size() > maxBuffered) {
            writeBuffer();
        }
    }

    /**
     * One write batch for the whole buffer: a removal is a null value, which RocksDB applies as a delete
     * without reading the old value first (as a single {@code delete} would) and the changelog logs as a
     * tombstone.
     */
    @Override
    protected void writeBuffer() {
        if (buffer.isEmpty() && removed.isEmpty()) {
            return;
        }
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(buffer.size() + removed.size());
        for (Bytes key : removed) {
            batch.add(KeyValue.pair(key, null));
        }
        for (Map.Entry<Bytes, byte[]> e : buffer.entrySet()) {
            batch.add(KeyValue.pair(e.getKey(), e.getValue()));
        }
        inner.putAll(batch);
        buffer.clear();
        removed.clear();
    }

    @Override
    protected void discardBuffer() {
        buffer.clear();
        removed.clear();
    }
}
