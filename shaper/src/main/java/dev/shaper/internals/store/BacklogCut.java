package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;

/**
 * {@link TaskQueues#cutUnreachable}: which queued records can no longer leave by their bound at the rate the task's
 * backlog drains at now, and their removal. The first pass walks the bands in release order and works out each
 * record's expected release: the longer of its key's own due and the units queued ahead of it (those kept, not those
 * cut) at the rate, as an arrival's estimate does. The second takes each key with a record cut out of the store and
 * puts back what stays, since a key's records leave the store in order.
 */
final class BacklogCut {

    /** One record that cannot leave by its bound: when it would leave, and the latest it may. */
    private record Unreachable(long expectedWallMs, long latestWallMs) {
    }

    /** One key of a band with records cut: which, and, in the second pass, all its queued records in order. */
    private static final class KeyCut {
        final Map<Long, Unreachable> byDue = new HashMap<>();
        final List<ScheduleStore.Entry> entries = new ArrayList<>();
    }

    private final TaskQueues.BacklogEstimate estimate;
    private final TaskQueues.BacklogBounds bounds;

    BacklogCut(TaskQueues.BacklogEstimate estimate, TaskQueues.BacklogBounds bounds) {
        this.estimate = estimate;
        this.bounds = bounds;
    }

    /**
     * Both passes over {@code bands}, in release order; true if a band's store wrote ahead of the commit once its
     * records were put back (the key states must go with them).
     */
    boolean run(List<TaskQueues.BandQueue> bands, Removal removal) {
        boolean writtenEarly = false;
        for (Map.Entry<TaskQueues.BandQueue, Map<Bytes, KeyCut>> band : find(bands).entrySet()) {
            remove(band.getKey(), band.getValue(), removal);
            // Taken out and put back without writing ahead of the commit; now the store may
            writtenEarly |= band.getKey().schedule.writeIfFull();
        }
        return writtenEarly;
    }

    /**
     * The first pass, over {@code bands} in release order: per band, the keys with records that cannot make their
     * bound. Within a band records leave in due order (the store shows them run by run, so they are sorted first).
     * Bands of one priority drain side by side: a record counts what is ahead of it in its band at the band's part
     * of the priority (its claim among theirs), and never more than all the priority holds.
     */
    private Map<TaskQueues.BandQueue, Map<Bytes, KeyCut>> find(List<TaskQueues.BandQueue> bands) {
        Map<TaskQueues.BandQueue, Map<Bytes, KeyCut>> found = new LinkedHashMap<>();
        long keptAbove = 0; // units kept in the higher priorities: they all leave first
        for (int first = 0; first < bands.size(); ) {
            int priority = bands.get(first).band.priority();
            int end = first;
            long priorityUnits = 0;
            double claims = 0;
            while (end < bands.size() && bands.get(end).band.priority() == priority) {
                priorityUnits += bands.get(end).queuedUnits;
                claims += bands.get(end).claim();
                end++;
            }
            long keptInPriority = 0;
            for (int i = first; i < end; i++) {
                TaskQueues.BandQueue queue = bands.get(i);
                if (queue.queuedRecords <= 0) {
                    continue;
                }
                double share = end - first == 1 || !(claims > 0) ? 1 : queue.claim() / claims;
                List<Seen> seen = new ArrayList<>((int) Math.min(queue.queuedRecords, 1 << 20));
                queue.schedule.scan(queue.scanFloor, ScheduleKeys.lowerBound(Long.MAX_VALUE), entry -> {
                    seen.add(new Seen(entry));
                    return true;
                });
                seen.sort(Seen.DUE_ORDER);
                Map<Bytes, KeyCut> cut = new HashMap<>();
                long kept = 0; // units of the band kept so far: ahead of the next record
                for (Seen record : seen) {
                    double ahead = keptAbove + Math.min(kept / share, (double) priorityUnits);
                    long expected = expectedWallMs(record.dueNanos, ahead);
                    if (expected > record.latestWallMs) {
                        cut.computeIfAbsent(record.key, k -> new KeyCut()).byDue.put(record.dueNanos,
                                new Unreachable(expected, record.latestWallMs));
                    } else {
                        kept += record.cost;
                    }
                }
                keptInPriority += kept;
                if (!cut.isEmpty()) {
                    found.put(queue, cut);
                }
            }
            keptAbove += keptInPriority;
            first = end;
        }
        return found;
    }

    /**
     * When a record due at {@code dueNanos} with {@code unitsAhead} of the task ahead of it would leave: the latest of
     * its due, the task's rate through what is ahead, and the ceiling letting the instance's units ahead go first.
     */
    private long expectedWallMs(long dueNanos, double unitsAhead) {
        double capNanos = estimate.owedNanos() + unitsAhead * 1e9 / estimate.ratePerSecond();
        double keyNanos = (double) dueNanos - estimate.nowNanos();
        long instanceUnit = (long) Math.floor(unitsAhead * estimate.instanceUnitsPerTaskUnit()) + 1;
        double ceilingNanos = estimate.ceiling().msUntil(instanceUnit) * 1e6;
        return estimate.wallNowMs() + (long) (Math.max(0, Math.max(Math.max(capNanos, keyNanos), ceilingNanos)) / 1e6);
    }

    /** What the first pass needs of one queued record. */
    private final class Seen {
        static final Comparator<Seen> DUE_ORDER = Comparator.<Seen>comparingLong(seen -> seen.dueNanos)
                .thenComparing(seen -> seen.key);
        final Bytes key;
        final long dueNanos;
        final long cost;
        final long latestWallMs;

        Seen(ScheduleStore.Entry entry) {
            byte[] value = entry.value();
            this.key = Bytes.wrap(entry.recordKey());
            this.dueNanos = entry.dueNanos();
            this.cost = QueuedRecord.costOf(value);
            this.latestWallMs = bounds.latestReleaseWallMs(entry.recordKey(), QueuedRecord.timestampOf(value),
                    QueuedRecord.enqueuedWallMsOf(value), QueuedRecord.deadlineOf(value));
        }
    }

    /**
     * The second pass, through one band: the keys in {@code cut} leave the store whole, their records that stay are
     * put back with their dues, and those cut go to {@code sink}.
     */
    private void remove(TaskQueues.BandQueue queue, Map<Bytes, KeyCut> cut, Removal removal) {
        queue.schedule.scan(queue.scanFloor, ScheduleKeys.lowerBound(Long.MAX_VALUE), entry -> {
            KeyCut key = cut.get(Bytes.wrap(entry.recordKey()));
            if (key != null) {
                key.entries.add(entry);
            }
            return true;
        });
        // A key whose records the scan did not all show (one due at the end of time) is left as it is
        cut.entrySet().removeIf(key -> key.getValue().entries.size() != removal.queuedRecordsOf(key.getKey().get()));
        for (KeyCut key : cut.values()) {
            for (ScheduleStore.Entry entry : key.entries) {
                queue.schedule.release(entry);
            }
        }
        for (Map.Entry<Bytes, KeyCut> key : cut.entrySet()) {
            byte[] recordKey = key.getKey().get();
            for (ScheduleStore.Entry entry : key.getValue().entries) {
                Unreachable unreachable = key.getValue().byDue.get(entry.dueNanos());
                if (unreachable == null) {
                    queue.schedule.putHeld(recordKey, entry.dueNanos(), entry.value());
                } else {
                    removal.removed(queue, recordKey, entry.value(), unreachable.expectedWallMs(),
                            unreachable.latestWallMs());
                }
            }
        }
    }

    /** What {@link #remove} took out, one record at a time, in its key's order. */
    interface Removal {
        /** How many records {@code key} has queued, as its state counts them. */
        int queuedRecordsOf(byte[] key);

        void removed(TaskQueues.BandQueue queue, byte[] key, byte[] value, long expectedWallMs, long latestWallMs);
    }
}
