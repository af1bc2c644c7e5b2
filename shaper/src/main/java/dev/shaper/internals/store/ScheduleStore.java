package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
 * <p>Records queued since the last commit are kept in memory, one entry per record. Every schedule key is
 * new when it is written (dues of a key only grow), so a record that is queued and released within one
 * commit interval is simply dropped from the buffer: no RocksDB write, no changelog record, no tombstone.
 * At the commit, what survives is written as {@link ScheduleSegment segments}: a key's consecutive records
 * in one entry (up to {@value ScheduleSegment#MAX_RECORDS}), so a burst that waits costs a RocksDB write and
 * a changelog record per key and commit, not per record.
 *
 * <p>Releasing part of a stored segment moves a cursor in memory; at the commit the segment is deleted and
 * what remains of it is written again under the key of its first remaining record. What RocksDB and the
 * changelog hold after a commit is therefore exactly the records that were still queued, whatever happens
 * next.
 *
 * <p>A scan shows every record on its own, as an {@link Entry}, in departure order per key; a stored
 * segment's records are shown together at the segment's place in the order.
 */
public final class ScheduleStore extends WriteBehindStore {

    /**
     * Unsigned lexicographic order, as RocksDB's: the same order as {@link Bytes#compareTo}, but through the JDK's
     * vectorised {@link Arrays#compareUnsigned}, which compares the 8-byte due prefix in one step instead of a
     * byte at a time (the buffer's tree compares keys on every put and every release).
     */
    private static final Comparator<Bytes> ORDER = (a, b) -> Arrays.compareUnsigned(a.get(), b.get());

    /** One queued record as a scan shows it. */
    public static final class Entry {
        private final Bytes scheduleKey;
        private final byte[] value;
        /** The stored segment that holds the record; null for a record still in the buffer. */
        private final Bytes segment;
        /** Where in its segment the record ends, and how long the segment is. */
        private final int end;
        private final int segmentLength;

        Entry(Bytes scheduleKey, byte[] value, Bytes segment, int end, int segmentLength) {
            this.scheduleKey = scheduleKey;
            this.value = value;
            this.segment = segment;
            this.end = end;
            this.segmentLength = segmentLength;
        }

        /** The record's own schedule key: its due and its record key. */
        public Bytes scheduleKey() {
            return scheduleKey;
        }

        /** The {@link QueuedRecord} encoding. */
        public byte[] value() {
            return value;
        }

        /** A scan must start at or before this key to show the record again. */
        public Bytes position() {
            return segment != null ? segment : scheduleKey;
        }
    }

    private final int maxBuffered;
    /** Records queued since the last commit, in departure order. */
    private final TreeMap<Bytes, byte[]> buffer = new TreeMap<>(ORDER);
    /**
     * Stored segments released completely since the last commit. A hash set, not markers in the tree: the scan
     * only asks whether a stored segment is gone, and the commit writes the tombstones in any order.
     */
    private final Set<Bytes> removed = new HashSet<>();
    /**
     * Stored segments that a scan opened and that still hold records: where their next record starts. Each of
     * them lies before the records it still holds, so scans must keep starting at or before the first of them.
     */
    private final TreeMap<Bytes, Integer> cursors = new TreeMap<>(ORDER);

    public ScheduleStore(KeyValueStore<Bytes, byte[]> inner, int maxBuffered) {
        super(inner);
        this.maxBuffered = maxBuffered;
    }

    /** Queues a record under a schedule key that was never used before. */
    public void put(Bytes scheduleKey, byte[] queuedRecord) {
        buffer.put(scheduleKey, queuedRecord);
        if (buffer.size() + removed.size() > maxBuffered) {
            writeBuffer();
        }
    }

    /**
     * Removes a record that the latest {@link #scan} showed. The records of one stored segment must be
     * released in order, and before anything else is written to this store.
     */
    public void release(Entry entry) {
        if (entry.segment == null) {
            if (buffer.remove(entry.scheduleKey) == null) {
                throw new IllegalStateException("released a record that is not buffered: " + entry.scheduleKey);
            }
            return;
        }
        if (entry.end == entry.segmentLength) {
            cursors.remove(entry.segment);
            removed.add(entry.segment);
        } else {
            cursors.put(entry.segment, entry.end);
        }
    }

    /**
     * The first stored segment that was released in part, or that a scan reached before its last record
     * fell due; null if there is none. A scan must start at or before it.
     */
    public Bytes firstOpenSegment() {
        return cursors.isEmpty() ? null : cursors.firstKey();
    }

    /**
     * Shows {@code visitor} the records from {@code from} to {@code to} (both inclusive, as schedule keys), in
     * key order of their {@link Entry#position() positions}, until it returns false. The visitor must not
     * change this store; it may collect what it wants to release.
     *
     * @return the position of the entry the visitor stopped at, or null if the range was exhausted
     */
    public Bytes scan(Bytes from, Bytes to, Predicate<Entry> visitor) {
        NavigableMap<Bytes, byte[]> buffered = buffer.subMap(from, true, to, true);
        Iterator<Map.Entry<Bytes, byte[]>> mem = buffered.entrySet().iterator();
        try (KeyValueIterator<Bytes, byte[]> disk = inner.range(from, to)) {
            Map.Entry<Bytes, byte[]> m = next(mem);
            KeyValue<Bytes, byte[]> d = nextStored(disk);
            while (m != null || d != null) {
                if (d == null || (m != null && ORDER.compare(m.getKey(), d.key) < 0)) {
                    if (!visitor.test(new Entry(m.getKey(), m.getValue(), null, 0, 0))) {
                        return m.getKey();
                    }
                    m = next(mem);
                } else {
                    if (!showSegment(d.key, d.value, to, visitor)) {
                        return d.key;
                    }
                    d = nextStored(disk);
                }
            }
        }
        return null;
    }

    /** Shows the due records of one stored segment; false if the visitor stopped. */
    private boolean showSegment(Bytes segmentKey, byte[] segment, Bytes to, Predicate<Entry> visitor) {
        ScheduleSegment.checkVersion(segmentKey, segment);
        byte[] recordKey = ScheduleKeys.recordKey(segmentKey);
        Integer cursor = cursors.get(segmentKey);
        int position = cursor != null ? cursor : ScheduleSegment.FIRST;
        while (position < segment.length) {
            Bytes scheduleKey = ScheduleKeys.of(ScheduleSegment.dueAt(segment, position), recordKey);
            if (ORDER.compare(scheduleKey, to) > 0) {
                // The rest falls due later, so scans must come back to this segment. Nothing of it was released
                // unless a cursor exists already: what this scan showed may still be held back.
                cursors.putIfAbsent(segmentKey, ScheduleSegment.FIRST);
                return true;
            }
            int end = ScheduleSegment.next(segment, position);
            if (!visitor.test(new Entry(scheduleKey, ScheduleSegment.recordAt(segment, position), segmentKey, end,
                    segment.length))) {
                return false;
            }
            position = end;
        }
        return true;
    }

    private static Map.Entry<Bytes, byte[]> next(Iterator<Map.Entry<Bytes, byte[]>> it) {
        return it.hasNext() ? it.next() : null;
    }

    /** The next stored segment that was not released completely since the last commit. */
    private KeyValue<Bytes, byte[]> nextStored(KeyValueIterator<Bytes, byte[]> disk) {
        while (disk.hasNext()) {
            KeyValue<Bytes, byte[]> entry = disk.next();
            if (removed.isEmpty() || !removed.contains(entry.key)) {
                return entry;
            }
        }
        return null;
    }

    /**
     * One write batch for everything since the last commit: tombstones of the segments released completely,
     * each segment released in part written again as what remains of it, and the buffered records as new
     * segments, a key's consecutive records together. A removal is a null value, which RocksDB applies as a
     * delete without reading the old value first (as a single {@code delete} would) and the changelog logs
     * as a tombstone.
     */
    @Override
    protected void writeBuffer() {
        if (buffer.isEmpty() && removed.isEmpty() && cursors.isEmpty()) {
            return;
        }
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        for (Bytes key : removed) {
            batch.add(KeyValue.pair(key, null));
        }
        for (Map.Entry<Bytes, Integer> cursor : cursors.entrySet()) {
            if (cursor.getValue() > ScheduleSegment.FIRST) {
                Bytes segmentKey = cursor.getKey();
                byte[] segment = inner.get(segmentKey);
                int position = cursor.getValue();
                Bytes restKey = ScheduleKeys.of(ScheduleSegment.dueAt(segment, position),
                        ScheduleKeys.recordKey(segmentKey));
                batch.add(KeyValue.pair(segmentKey, null));
                batch.add(KeyValue.pair(restKey, ScheduleSegment.rest(segment, position)));
            }
        }
        batch.addAll(segmentsOfBuffer());
        inner.putAll(batch);
        buffer.clear();
        removed.clear();
        cursors.clear(); // the next scan opens what it needs again; its start lies before all of them
    }

    /** The buffered records as segments: a key's consecutive records together, at most MAX_RECORDS each. */
    private List<KeyValue<Bytes, byte[]>> segmentsOfBuffer() {
        Map<Bytes, List<KeyValue<Bytes, byte[]>>> byKey = new LinkedHashMap<>();
        for (Map.Entry<Bytes, byte[]> e : buffer.entrySet()) { // departure order, so each key's in due order
            byKey.computeIfAbsent(Bytes.wrap(ScheduleKeys.recordKey(e.getKey())), k -> new ArrayList<>())
                    .add(KeyValue.pair(e.getKey(), e.getValue()));
        }
        List<KeyValue<Bytes, byte[]>> segments = new ArrayList<>();
        for (List<KeyValue<Bytes, byte[]>> records : byKey.values()) {
            for (int i = 0; i < records.size(); i += ScheduleSegment.MAX_RECORDS) {
                List<KeyValue<Bytes, byte[]>> part = records.subList(i,
                        Math.min(records.size(), i + ScheduleSegment.MAX_RECORDS));
                segments.add(KeyValue.pair(part.get(0).key, ScheduleSegment.encode(part)));
            }
        }
        return segments;
    }

    @Override
    protected void discardBuffer() {
        buffer.clear();
        removed.clear();
        cursors.clear();
    }
}
