package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;

/**
 * The queues of one stream task: each key's state and the records waiting for their due time, over the task's
 * key-state store and schedule store. The rules about what goes where, in which order, live here and only here:
 * the encoding of a queued record, the bytes a key has queued, the key states that must reach RocksDB when queued
 * records do, and where the next release scan starts.
 */
public final class TaskQueues {

    /** How many stored key states one tick looks at for eviction. */
    static final int EVICTION_SCAN_PER_TICK = 1_000;

    /** Decides, record by record in due order, what a release scan may let go. */
    public interface ReleasePolicy {
        /** Whether a due record of {@code key}, queued at wall time {@code enqueuedWallMs}, waited too long to go. */
        boolean expired(byte[] key, long enqueuedWallMs);

        /**
         * The key's state once one of its records, costing {@code cost}, is released now; null if the key's own
         * schedule holds it back (its later records then wait too).
         */
        KeyState release(byte[] key, KeyState state, long cost);

        /** Whether {@code cost} more units may leave now across the task; false ends the scan. */
        boolean takeTotal(long cost);
    }

    /** Receives what a release scan took out of the queues, in due order, after the scan. */
    public interface ReleasedRecords {
        /** {@code record} of {@code key} is released, freeing {@code storedBytes}. */
        void released(byte[] key, QueuedRecord record, long storedBytes);

        /** {@code record} of {@code key} expired (see {@link ReleasePolicy#expired}), freeing {@code storedBytes}. */
        void expired(byte[] key, QueuedRecord record, long storedBytes);
    }

    /**
     * What {@link #enqueue} did.
     *
     * @param stored      whether the record joined its key's queue
     * @param storedBytes what it takes in the schedule store with its key; when it did not join, the size of its
     *                    queued form, too large for the schedule store's changelog
     */
    public record Enqueued(boolean stored, long storedBytes) {
    }

    private final ScheduleStore schedule;
    private final KeyStateStore keyStates;
    /** No queued record has a due before this: a scan starts here instead of wading through tombstones. */
    private Bytes scanFloor = ScheduleKeys.lowerBound(Long.MIN_VALUE);
    /** The keys one release scan holds back; a field so that a tick costs no new hash table. */
    private final Set<Bytes> heldBack = new HashSet<>();
    private final List<ScheduleStore.Entry> released = new ArrayList<>();
    /** Whether each entry of {@link #released} expired rather than was released. */
    private final List<Boolean> expired = new ArrayList<>();
    /** Records and units queued in the task, all keys together. */
    private long queuedRecords;
    private long queuedUnits;
    private final QueuedTotals restored;
    /** The scan in progress: its policy, and the position of the first record it held back. */
    private ReleasePolicy scanPolicy;
    private Bytes firstHeldBack;

    /** Opens the queues of a task over its stores, counting what they hold (a full scan of the key states). */
    public TaskQueues(ScheduleStore schedule, KeyStateStore keyStates) {
        this.schedule = schedule;
        this.keyStates = keyStates;
        this.restored = keyStates.queuedTotals();
        this.queuedRecords = restored.records();
        this.queuedUnits = restored.units();
    }

    /** The virtual time the task saved last, or null if it never ran. */
    public Long savedVirtualTime() {
        return keyStates.loadVirtualTime();
    }

    /** What the queues held when they opened (restored from the changelog, or left by the task before). */
    public QueuedTotals restoredTotals() {
        return restored;
    }

    /** Records queued in the task now, all keys together. */
    public long queuedRecords() {
        return queuedRecords;
    }

    /** Units (costs) queued in the task now, all keys together. */
    public long queuedUnits() {
        return queuedUnits;
    }

    /** Tells the queues the task's virtual time, which decides which key states are idle. */
    public void setNow(long virtualNanos) {
        keyStates.setVirtualNow(virtualNanos);
    }

    /** The entry of {@code key}: its state, to read and update, valid until the next call of these queues. */
    public KeyEntry entry(byte[] key) {
        return keyStates.entry(key);
    }

    /** The record of {@code key} leaves at once: the key's state becomes {@code newState}. */
    public void pass(KeyEntry entry, KeyState newState) {
        entry.update(newState);
    }

    /**
     * Queues a record of {@code key} until virtual time {@code dueNanos}, the key's state becoming {@code newState}
     * (plus the record's bytes). A record too large for the schedule store's changelog does not join the queue and
     * leaves the key's state as it was.
     */
    public Enqueued enqueue(KeyEntry entry, byte[] key, long dueNanos, KeyState newState, long timestamp,
                            long enqueuedWallMs, long cost, Headers headers, byte[] value) {
        byte[] stored = new QueuedRecord(timestamp, enqueuedWallMs, cost, headers, value).encode();
        if (!schedule.fitsAlone(key, stored)) {
            return new Enqueued(false, key.length + stored.length);
        }
        long storedBytes = QueuedRecord.storedSize(key, stored);
        entry.update(newState.plusQueuedBytes(storedBytes));
        queuedRecords++;
        queuedUnits += cost;
        if (schedule.put(key, dueNanos, stored)) {
            // Queued records reached RocksDB ahead of the commit: their keys' states and the virtual time their dues
            // count in go with them (under at-least-once a crash before the commit would restore records without).
            keyStates.flushCache();
        }
        return new Enqueued(true, storedBytes);
    }

    /**
     * Lets go, in due order, the queued records due by virtual time {@code nowNanos} that {@code policy} releases,
     * and hands them to {@code sink} once the scan is over. A key held back keeps its due records for a later scan,
     * which goes on with the other keys; the total cap ends the scan.
     */
    public void releaseDue(long nowNanos, ReleasePolicy policy, ReleasedRecords sink) {
        released.clear();
        expired.clear();
        heldBack.clear();
        firstHeldBack = null;
        scanPolicy = policy;
        Bytes stoppedAt = schedule.scan(scanFloor, ScheduleKeys.lowerBound(nowNanos + 1), this::visit);
        scanPolicy = null;
        for (int i = 0; i < released.size(); i++) {
            ScheduleStore.Entry entry = released.get(i);
            schedule.release(entry);
            QueuedRecord record = QueuedRecord.decode(entry.value());
            queuedRecords--;
            queuedUnits -= record.cost();
            long storedBytes = QueuedRecord.storedSize(entry.recordKey(), entry.value());
            if (expired.get(i)) {
                sink.expired(entry.recordKey(), record, storedBytes);
            } else {
                sink.released(entry.recordKey(), record, storedBytes);
            }
        }
        released.clear();
        expired.clear();
        scanFloor = nextScanFloor(nowNanos, stoppedAt, firstHeldBack, schedule.firstOpenPosition());
    }

    /** One due record of a release scan: false ends the scan. */
    private boolean visit(ScheduleStore.Entry entry) {
        byte[] key = entry.recordKey();
        Bytes wrapped = Bytes.wrap(key);
        if (heldBack.contains(wrapped)) {
            return true; // FIFO: once a key is held back, so are its later records
        }
        long cost = QueuedRecord.costOf(entry.value());
        KeyEntry slot = keyStates.entry(key);
        if (scanPolicy.expired(key, QueuedRecord.enqueuedWallMsOf(entry.value()))) {
            // Out of the queue without a release: the key's release schedule stays, and the cap is not spent.
            slot.update(LeakyBucket.expire(slot.state(), cost)
                    .plusQueuedBytes(-QueuedRecord.storedSize(key, entry.value())));
            released.add(entry);
            expired.add(Boolean.TRUE);
            return true;
        }
        KeyState after = scanPolicy.release(key, slot.state(), cost);
        if (after == null) {
            heldBack.add(wrapped);
            if (firstHeldBack == null) {
                firstHeldBack = entry.position();
            }
            return true;
        }
        if (!scanPolicy.takeTotal(cost)) {
            return false;
        }
        // The key's state moves now, so that its next due record in this scan sees it.
        slot.update(after.plusQueuedBytes(-QueuedRecord.storedSize(key, entry.value())));
        released.add(entry);
        expired.add(Boolean.FALSE);
        return true;
    }

    /** At the start of a tick: the virtual time now, saved with the states it counts in. */
    public void startTick(long nowNanos) {
        keyStates.setVirtualNow(nowNanos);
        keyStates.saveVirtualTime(nowNanos);
    }

    /** At the end of a tick: sweeps some idle states out of the store. */
    public void endTick(long nowNanos) {
        keyStates.evictIdle(nowNanos, EVICTION_SCAN_PER_TICK);
    }

    /**
     * Where the next release scan starts. Everything before the end of this one that was not held back is gone,
     * and arrivals from now on are due at {@code now} or later; so the next scan starts at "now", or earlier: at
     * the first record held back, where the total cap stopped the scan, or at a run or stored segment that
     * still holds records. Never later than "now": a record that arrives in the same millisecond as this scan
     * is due at {@code now}, and its schedule key may sort before the one the total cap stopped at.
     *
     * @param stoppedAt     where the total cap stopped the scan, null if it went to its end
     * @param firstHeldBack the position of the first record its key's release schedule held back, or null
     * @param firstOpen     the schedule store's {@link ScheduleStore#firstOpenPosition()}
     */
    static Bytes nextScanFloor(long now, Bytes stoppedAt, Bytes firstHeldBack, Bytes firstOpen) {
        return earlier(earlier(earlier(ScheduleKeys.lowerBound(now), stoppedAt), firstHeldBack), firstOpen);
    }

    private static Bytes earlier(Bytes a, Bytes b) {
        return b != null && b.compareTo(a) < 0 ? b : a;
    }
}
