package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
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

    /** Marks a buffered removal of an entry that the inner store holds. Compared by identity. */
    private static final byte[] REMOVED = new byte[0];

    private final int maxBuffered;
    private final TreeMap<Bytes, byte[]> buffer = new TreeMap<>();

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
        byte[] buffered = buffer.remove(scheduleKey);
        if (buffered == null || buffered == REMOVED) {
            buffer.put(scheduleKey, REMOVED);
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
            KeyValue<Bytes, byte[]> d = disk.hasNext() ? disk.next() : null;
            while (m != null || d != null) {
                KeyValue<Bytes, byte[]> candidate;
                int cmp = m == null ? 1 : d == null ? -1 : m.getKey().compareTo(d.key);
                if (cmp <= 0) {
                    byte[] value = m.getValue();
                    candidate = value == REMOVED ? null : KeyValue.pair(m.getKey(), value);
                    m = next(mem);
                    if (cmp == 0) {
                        d = disk.hasNext() ? disk.next() : null;
                    }
                } else {
                    candidate = d;
                    d = disk.hasNext() ? disk.next() : null;
                }
                if (candidate != null && !visitor.test(candidate)) {
                    return candidate.key;
                }
            }
        }
        return null;
    }

    private static Map.Entry<Bytes, byte[]> next(Iterator<Map.Entry<Bytes, byte[]>> it) {
        return it.hasNext() ? it.next() : null;
    }

    private void writeBufferIfFull() {
        if (buffer.size() > maxBuffered) {
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
        if (buffer.isEmpty()) {
            return;
        }
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(buffer.size());
        for (Map.Entry<Bytes, byte[]> e : buffer.entrySet()) {
            batch.add(KeyValue.pair(e.getKey(), e.getValue() == REMOVED ? null : e.getValue()));
        }
        inner.putAll(batch);
        buffer.clear();
    }

    @Override
    protected void discardBuffer() {
        buffer.clear();
    }
}
