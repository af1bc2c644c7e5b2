package dev.shaper.internals.store;

import dev.shaper.internals.limits.RecordSize;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>Records queued since the last commit are kept in memory, a key's consecutive records together in a
 * {@link BufferedRun}. Dues of a key only grow, so a record that is queued and released within one commit
 * interval simply leaves its run: no RocksDB write, no changelog record, no tombstone. At the commit, what
 * survives is written as {@link ScheduleSegment segments}, a run's remaining records in one entry, so a
 * burst that waits costs a RocksDB write and a changelog record per key and commit, not per record.
 *
 * <p>Releasing part of a stored segment moves a cursor in memory; at the commit the segment is deleted and
 * what remains of it is written again under the key of its first remaining record. What RocksDB and the
 * changelog hold after a commit is therefore exactly the records that were still queued, whatever happens
 * next. Such rewrites are what a segment's size trades against, so a run (and with it a segment) ends not only
 * at {@link ScheduleSegment#MAX_RECORDS} records but also when its dues span {@code maxSpanNanos} (a tick):
 * releases happen at ticks, so such a segment is released in at most two parts, and a slow key with a long queue
 * does not rewrite the rest of its head segment at every commit (figures: docs/decisions/0002-key-state-cache.md).
 * A run also ends at {@link ScheduleSegment#TARGET_BYTES}, and a segment is never larger than the changelog topic
 * takes: {@code maxStoredBytes}, as {@link RecordSize} bounds a changelog record. A record that cannot be stored
 * even alone must not be queued ({@link #fitsAlone}).
 *
 * <p>A scan shows every record on its own, as an {@link Entry}, in departure order per key; the records of
 * a run or a stored segment are shown together, at the run's or segment's {@link Entry#position() position}
 * in the order. A stored entry of the format before segments (one record per entry, version 1) is read as a
 * segment of its one record ({@link ScheduleSegment#read}), so a store written by that version still releases
 * its records; it is deleted when its record leaves, and never written again.
 */
public final class ScheduleStore extends WriteBehindStore {

    /**
     * Unsigned lexicographic order, as RocksDB's: the same order as {@link Bytes#compareTo}, but through the JDK's
     * vectorised {@link Arrays#compareUnsigned}, which compares the 8-byte due prefix in one step instead of a
     * byte at a time.
     */
    private static final Comparator<Bytes> ORDER = (a, b) -> Arrays.compareUnsigned(a.get(), b.get());

    /** One queued record as a scan shows it. */
    public static final class Entry {
        private final long dueNanos;
        private final byte[] recordKey;
        private final byte[] value;
        /** The run that holds the record, and where; null for a record of a stored segment. */
        private final BufferedRun run;
        private final int index;
        /** The stored segment that holds the record, where the record ends, and how long the segment is. */
        private final Bytes segment;
        private final int end;
        private final int segmentLength;

        private Entry(long dueNanos, byte[] recordKey, byte[] value, BufferedRun run, int index, Bytes segment,
                      int end, int segmentLength) {
            this.dueNanos = dueNanos;
            this.recordKey = recordKey;
            this.value = value;
            this.run = run;
            this.index = index;
            this.segment = segment;
            this.end = end;
            this.segmentLength = segmentLength;
        }

        /** The record's own schedule key: its due and its record key (built on request). */
        public Bytes scheduleKey() {
            return ScheduleKeys.of(dueNanos, recordKey);
        }

        /**
         * The record's key, shared by the entries of one run or segment (the key in {@link #scheduleKey()},
         * without copying it out again); not to be changed.
         */
        public byte[] recordKey() {
            return recordKey;
        }

        /** The record's due: its slot on its key's rate schedule, in the task's virtual time. */
        public long dueNanos() {
            return dueNanos;
        }

        /** The {@link QueuedRecord} encoding. */
        public byte[] value() {
            return value;
        }

        /** A scan must start at or before this key to show the record again. */
        public Bytes position() {
            return run != null ? run.position() : segment;
        }
    }

    private final int maxBuffered;
    private final long maxSpanNanos;
    private final long maxStoredBytes;
    /** The part of the RocksDB store this band's records live in. */
    private final SegmentTable table;
    /** The bytes the band's prefix adds to each of its keys in the store and its changelog (0 for the default). */
    private final int prefixLength;
    /** The other bands of the task's schedule, under this one, the default band, which the task registers. */
    private final Map<ScheduleBand, ScheduleStore> bands = new HashMap<>();
    /** The runs that still hold records, by position. */
    private final TreeMap<Bytes, BufferedRun> runs = new TreeMap<>(ORDER);
    /** Per record key, the run its next record joins while it takes more ({@link BufferedRun#accepts}). */
    private final Map<Bytes, BufferedRun> tails = new HashMap<>();
    /** Records the runs hold: with the pending tombstones, what decides an early write. */
    private int buffered;
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

    /**
     * @param maxBuffered  records held in memory (plus pending tombstones) before they are written early
     * @param maxSpanNanos   the longest span of dues one run, and so one segment, may cover (at least 1)
     * @param maxStoredBytes the largest record the changelog topic takes, as {@link RecordSize} bounds it
     */
    public ScheduleStore(KeyValueStore<Bytes, byte[]> inner, int maxBuffered, long maxSpanNanos,
                         long maxStoredBytes) {
        this(inner, ScheduleBand.DEFAULT, maxBuffered, maxSpanNanos, maxStoredBytes);
    }

    private ScheduleStore(KeyValueStore<Bytes, byte[]> inner, ScheduleBand band, int maxBuffered, long maxSpanNanos,
                          long maxStoredBytes) {
        super(inner);
        if (maxSpanNanos < 1) {
            throw new IllegalArgumentException("maxSpanNanos must be >= 1, got " + maxSpanNanos);
        }
        this.maxBuffered = maxBuffered;
        this.maxSpanNanos = maxSpanNanos;
        this.maxStoredBytes = maxStoredBytes;
        this.table = SegmentTable.of(inner, band);
        this.prefixLength = band.prefix().length;
    }

    /**
     * The schedule of {@code band}: this store for the default band, otherwise a store of the same kind over the
     * band's part of the same RocksDB store, written and discarded with this one.
     */
    public ScheduleStore band(ScheduleBand band) {
        if (band.isDefault()) {
            return this;
        }
        return bands.computeIfAbsent(band, b -> new ScheduleStore(inner, b, maxBuffered, maxSpanNanos,
                maxStoredBytes));
    }

    /** The bands other than the default that hold stored records: one short seek per band. */
    public List<ScheduleBand> storedBands() {
        List<ScheduleBand> found = new ArrayList<>();
        Bytes from = Bytes.wrap(new byte[] {1});
        Bytes end = Bytes.wrap(new byte[] {ScheduleBand.DEFAULT_BAND_FIRST_BYTE});
        while (from.compareTo(end) < 0) {
            Bytes first;
            try (KeyValueIterator<Bytes, byte[]> it = inner.range(from, end)) {
                first = it.hasNext() ? it.peekNextKey() : null;
            }
            if (first == null || first.compareTo(end) >= 0) {
                break;
            }
            found.add(ScheduleBand.ofPrefixed(first));
            from = ScheduleBand.afterPrefix(first);
        }
        return found;
    }

    /** Whether a record of {@code recordKey} with this encoding can be stored, in a segment of its own. */
    public boolean fitsAlone(byte[] recordKey, byte[] queuedRecord) {
        return ScheduleSegment.FRAMING + ScheduleSegment.RECORD_HEADER + (long) queuedRecord.length
                <= maxSegmentBytes(recordKey);
    }

    /** The largest segment of {@code recordKey}'s records that its changelog record can carry. */
    private long maxSegmentBytes(byte[] recordKey) {
        return maxStoredBytes - RecordSize.of(prefixLength + ScheduleKeys.length(recordKey), 0, 0);
    }

    /**
     * Queues a record of {@code recordKey}, due later than every record of that key queued before it and not before
     * the epoch (0); it must {@link #fitsAlone fit alone}.
     *
     * @return true if the buffer overflowed and everything pending was written to the inner store now, ahead of
     *         the commit; the caller should then write the states these records depend on too
     */
    public boolean put(byte[] recordKey, long dueNanos, byte[] queuedRecord) {
        putHeld(recordKey, dueNanos, queuedRecord);
        return writeIfFull();
    }

    /**
     * Queues like {@link #put}, but never writes ahead of the commit: for a step that takes records out and puts them
     * back, whose removals must not reach the store (and, under at-least-once, its changelog) without the records.
     * Call {@link #writeIfFull} once the step is done. Like {@link #put}, the record must be due after every record
     * of its key queued before it.
     */
    public void putHeld(byte[] recordKey, long dueNanos, byte[] queuedRecord) {
        if (dueNanos < 0) {
            // The default band's keys start at 0x80 because dues count from the epoch; see ScheduleBand.
            throw new IllegalArgumentException("a due before the epoch: " + dueNanos);
        }
        Bytes key = Bytes.wrap(recordKey);
        BufferedRun run = tails.get(key);
        if (run == null || !run.accepts(dueNanos, queuedRecord.length, maxSpanNanos,
                Math.min(ScheduleSegment.TARGET_BYTES, maxSegmentBytes(recordKey)))) {
            run = new BufferedRun(recordKey, dueNanos);
            runs.put(run.position(), run);
            tails.put(key, run);
        }
        run.append(dueNanos, queuedRecord);
        buffered++;
    }

    /**
     * Writes everything pending to the inner store now, ahead of the commit, if the buffer holds more than its
     * bound; true if it did (the caller should then write the states these records depend on too).
     */
    public boolean writeIfFull() {
        if (buffered + removed.size() > maxBuffered) {
            writeBuffer();
            return true;
        }
        return false;
    }

    /**
     * Removes a record that the latest {@link #scan} showed. The records of a key must be released in order,
     * and before anything else is written to this store.
     */
    public void release(Entry entry) {
        if (entry.run != null) {
            // A run that a commit wrote out is gone from the map: an entry of it is stale, its record stored.
            if (runs.get(entry.run.position()) != entry.run || !entry.run.releaseHead(entry.index)) {
                throw new IllegalStateException("released a record that is not buffered or not the next of its"
                        + " key: " + entry.scheduleKey());
            }
            buffered--;
            if (entry.run.isEmpty()) {
                runs.remove(entry.run.position());
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
     * The first run or stored segment that still holds records a scan has yet to show or release (a run
     * from the moment it holds a record; a stored segment once released in part, or reached by a scan before
     * its last record fell due); null if there is none. A scan must start at or before it.
     */
    public Bytes firstOpenPosition() {
        Bytes run = runs.isEmpty() ? null : runs.firstKey();
        Bytes segment = cursors.isEmpty() ? null : cursors.firstKey();
        if (run == null || segment == null) {
            return run != null ? run : segment;
        }
        return ORDER.compare(run, segment) <= 0 ? run : segment;
    }

    /**
     * Shows {@code visitor} the records due up to {@code to} (a schedule key, inclusive) of the runs and stored
     * segments positioned from {@code from} to {@code to}, in the order of their positions, until it returns
     * false. The visitor must not change this store; it may collect what it wants to release.
     *
     * @return the position of the entry the visitor stopped at, or null if the range was exhausted
     */
    public Bytes scan(Bytes from, Bytes to, Predicate<Entry> visitor) {
        Iterator<BufferedRun> mem = runs.subMap(from, true, to, true).values().iterator();
        try (KeyValueIterator<Bytes, byte[]> disk = table.range(from, to)) {
            BufferedRun m = mem.hasNext() ? mem.next() : null;
            KeyValue<Bytes, byte[]> d = nextStored(disk);
            while (m != null || d != null) {
                if (d == null || (m != null && ORDER.compare(m.position(), d.key) < 0)) {
                    if (!showRun(m, to, visitor)) {
                        return m.position();
                    }
                    m = mem.hasNext() ? mem.next() : null;
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

    /** Shows the due records of one run; false if the visitor stopped. */
    private static boolean showRun(BufferedRun run, Bytes to, Predicate<Entry> visitor) {
        for (int i = run.head(); i < run.size(); i++) {
            long due = run.dueAt(i);
            if (ScheduleKeys.compare(due, run.recordKey(), to) > 0) {
                return true; // the rest falls due later
            }
            if (!visitor.test(new Entry(due, run.recordKey(), run.valueAt(i), run, i, null, 0, 0))) {
                return false;
            }
        }
        return true;
    }

    /** Shows the due records of one stored segment; false if the visitor stopped. */
    private boolean showSegment(Bytes segmentKey, byte[] stored, Bytes to, Predicate<Entry> visitor) {
        byte[] segment = ScheduleSegment.read(segmentKey, stored);
        byte[] recordKey = ScheduleKeys.recordKey(segmentKey);
        Integer cursor = cursors.get(segmentKey);
        int position = cursor != null ? cursor : ScheduleSegment.FIRST;
        while (position < segment.length) {
            long due = ScheduleSegment.dueAt(segment, position);
            if (ScheduleKeys.compare(due, recordKey, to) > 0) {
                // The rest falls due later, so scans must come back to this segment. Nothing of it was released
                // unless a cursor exists already: what this scan showed may still be held back.
                cursors.putIfAbsent(segmentKey, ScheduleSegment.FIRST);
                return true;
            }
            int end = ScheduleSegment.next(segment, position);
            if (!visitor.test(new Entry(due, recordKey, ScheduleSegment.recordAt(segment, position), null,
                    0, segmentKey, end, segment.length))) {
                return false;
            }
            position = end;
        }
        return true;
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
     * One write batch for everything since the last commit: each segment released in part written again as what
     * remains of it, each run's remaining records as a new segment, then the tombstones of the segments released
     * completely or rewritten. A removal is a null value, which RocksDB applies as a delete without reading the old
     * value first (as a single {@code delete} would) and the changelog logs as a tombstone.
     */
    @Override
    protected void writeBuffer() {
        for (ScheduleStore band : bands.values()) {
            band.writeBuffer();
        }
        if (runs.isEmpty() && removed.isEmpty() && cursors.isEmpty()) {
            discardOwnBuffer(); // the runs' tails may still be known
            return;
        }
        List<Bytes> deletes = new ArrayList<>(removed.size() + cursors.size());
        List<KeyValue<Bytes, byte[]>> writes = new ArrayList<>(cursors.size() + runs.size());
        deletes.addAll(removed);
        for (Map.Entry<Bytes, Integer> cursor : cursors.entrySet()) {
            if (cursor.getValue() > ScheduleSegment.FIRST) {
                Bytes segmentKey = cursor.getKey();
                byte[] segment = ScheduleSegment.read(segmentKey, table.get(segmentKey));
                int position = cursor.getValue();
                Bytes restKey = ScheduleKeys.of(ScheduleSegment.dueAt(segment, position),
                        ScheduleKeys.recordKey(segmentKey));
                deletes.add(segmentKey);
                writes.add(KeyValue.pair(restKey, ScheduleSegment.rest(segment, position)));
            }
        }
        for (BufferedRun run : runs.values()) {
            Bytes firstRemaining = run.head() == 0 ? run.position()
                    : ScheduleKeys.of(run.dueAt(run.head()), run.recordKey());
            writes.add(KeyValue.pair(firstRemaining, run.encode()));
        }
        // The writes first, then the tombstones: a changelog cut short (at-least-once, a crash during the send) then
        // restores records twice rather than not at all. A key both deleted and written (a segment written again
        // under its own key) keeps its tombstone before its write.
        Set<Bytes> deleted = new HashSet<>(deletes);
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(deletes.size() + writes.size());
        for (KeyValue<Bytes, byte[]> write : writes) {
            if (!deleted.contains(write.key)) {
                batch.add(write);
            }
        }
        for (Bytes key : deletes) {
            batch.add(KeyValue.pair(key, null));
        }
        for (KeyValue<Bytes, byte[]> write : writes) {
            if (deleted.contains(write.key)) {
                batch.add(write);
            }
        }
        table.putAll(batch);
        discardOwnBuffer(); // the next scan opens what it needs again; its start lies before all of it
    }

    @Override
    protected void discardBuffer() {
        for (ScheduleStore band : bands.values()) {
            band.discardBuffer();
        }
        discardOwnBuffer();
    }

    private void discardOwnBuffer() {
        runs.clear();
        tails.clear();
        buffered = 0;
        removed.clear();
        cursors.clear();
    }
}
