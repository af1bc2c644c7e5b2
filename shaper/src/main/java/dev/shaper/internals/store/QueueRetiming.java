package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import dev.shaper.internals.shaping.ShapingRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.utils.Bytes;

/**
 * One band's part of {@link TaskQueues#bringForward}: the queued records of keys whose rule is now faster than the
 * spacing of their queue are taken out of the schedule store in order and put back with new dues (see there for the
 * rule of the new dues), and every waiting key's schedule follows its rule in force. Two passes over the band's
 * schedule; what is taken out is held in memory until it is put back, so a call takes a bounded number of records.
 */
final class QueueRetiming {

    private final TaskQueues.BandQueue queue;
    /** Writes the task's whole schedule, every band's, then the key states that count its records. */
    private final Runnable flushInOrder;
    private final KeyStateStore keyStates;
    private final WaitingRates waitingRates;
    private final long nowNanos;
    private final Function<byte[], ShapingRule> ruleOf;

    QueueRetiming(TaskQueues.BandQueue queue, Runnable flushInOrder, KeyStateStore keyStates,
                  WaitingRates waitingRates, long nowNanos,
                  Function<byte[], ShapingRule> ruleOf) {
        this.queue = queue;
        this.flushInOrder = flushInOrder;
        this.keyStates = keyStates;
        this.waitingRates = waitingRates;
        this.nowNanos = nowNanos;
        this.ruleOf = ruleOf;
    }

    /**
     * One key's queue: the first pass reads its dues (whether two of its records not yet due are further apart than
     * the rule spaces them), the second computes its new dues, record by record.
     */
    private static final class Retiming {
        final ShapingRule rule;
        final long nowNanos;
        int records;
        /** Whether two consecutive records not yet due are further apart than the rule spaces them. */
        boolean slower;
        /** The due and cost of the last record the pass saw (the second pass: its new due). */
        long lastDue = Long.MIN_VALUE;
        long lastCost;
        List<ScheduleStore.Entry> entries;

        Retiming(ShapingRule rule, long nowNanos) {
            this.rule = rule;
            this.nowNanos = nowNanos;
        }

        /** The first pass: the key's next record, due at {@code due}. */
        void read(long due, long cost) {
            if (lastDue > nowNanos) {
                slower |= due - lastDue > rule.intervalNanos(lastCost) + SPACING_TOLERANCE_NANOS;
            } else if (due > nowNanos) {
                // The first not yet due: by its rule it would be at most an interval from now (after the record
                // before it, due or gone; the cost of one gone is not known here, so its own stands in)
                slower |= due - nowNanos > rule.intervalNanos(lastDue == Long.MIN_VALUE ? cost : lastCost)
                        + SPACING_TOLERANCE_NANOS;
            }
            lastDue = due;
            lastCost = cost;
            records++;
        }

        /** The second pass: the new due of the key's next record, due at {@code due}; after the one before. */
        long next(long due, long cost) {
            long newDue;
            if (due <= nowNanos) {
                newDue = due; // due already: the release side lets it go in order, at the rule's pace
            } else if (lastDue == Long.MIN_VALUE) {
                newDue = nowNanos; // the first of the key not yet due: due now, paced by the release side
            } else {
                newDue = Math.min(due, LeakyBucket.saturatedAdd(Math.max(lastDue, nowNanos),
                        rule.intervalNanos(lastCost)));
            }
            lastDue = newDue;
            lastCost = cost;
            return newDue;
        }

        /** The key's theoretical arrival time after its last due. */
        long tat() {
            return LeakyBucket.saturatedAdd(lastDue, rule.intervalNanos(lastCost));
        }
    }

    /** How much further apart than the rule two records must be for their key to be brought forward (rounding). */
    private static final long SPACING_TOLERANCE_NANOS = 1_000;

    /**
     * Brings the band's keys forward, at most {@code maxRecords} records of them (whole keys; one key more than that
     * alone); true when nothing is left for a next call. Counts each waiting key's rate in force into the band's
     * claim and the task's waiting rates.
     */
    boolean bringForward(int maxRecords) {
        Bytes from = queue.scanFloor;
        Bytes to = ScheduleKeys.lowerBound(Long.MAX_VALUE);
        // First pass: every waiting key's rule, and which keys' queues are spaced wider than their rule.
        Map<Bytes, Retiming> keys = new HashMap<>();
        queue.schedule.scan(from, to, entry -> {
            Retiming key = keys.computeIfAbsent(Bytes.wrap(entry.recordKey()), k -> {
                ShapingRule rule = ruleOf.apply(k.get());
                // The release tick and the band's claim follow the rates in force, a raised one included
                queue.waitingRate += rule.ratePerSecond();
                waitingRates.add(rule.ratePerSecond());
                return new Retiming(rule, nowNanos);
            });
            key.read(entry.dueNanos(), QueuedRecord.costOf(entry.value()));
            return true;
        });
        Map<Bytes, Retiming> moving = new HashMap<>();
        int taken = 0;
        boolean done = true;
        for (Map.Entry<Bytes, Retiming> key : keys.entrySet()) {
            Retiming retiming = key.getValue();
            if (retiming.records != keyStates.entry(key.getKey().get()).state().queuedRecords()) {
                continue; // the pass did not see all of the key's records (one due at the end of time): left as it is
            }
            if (!retiming.slower) {
                updateSchedule(key.getKey().get(), retiming); // a raised rate for its next arrivals
            } else if (taken == 0 || taken + retiming.records <= maxRecords) {
                taken += retiming.records;
                Retiming again = new Retiming(retiming.rule, nowNanos);
                again.records = retiming.records;
                moving.put(key.getKey(), again);
            } else {
                done = false; // at the next call
            }
        }
        if (moving.isEmpty()) {
            return done;
        }
        // Second pass: the moving keys' records, in order; each such key's whole queue is taken out and put back,
        // since a key's records leave the store in order.
        moving.values().forEach(key -> key.entries = new ArrayList<>(key.records));
        queue.schedule.scan(from, to, entry -> {
            Retiming key = moving.get(Bytes.wrap(entry.recordKey()));
            if (key != null) {
                key.entries.add(entry);
            }
            return true;
        });
        for (Retiming key : moving.values()) {
            for (ScheduleStore.Entry entry : key.entries) {
                queue.schedule.release(entry);
            }
        }
        for (Map.Entry<Bytes, Retiming> key : moving.entrySet()) {
            byte[] recordKey = key.getKey().get();
            Retiming retiming = key.getValue();
            for (ScheduleStore.Entry entry : retiming.entries) {
                long due = retiming.next(entry.dueNanos(), QueuedRecord.costOf(entry.value()));
                queue.schedule.putHeld(recordKey, due, entry.value());
            }
        }
        // All taken out and put back; the moved queues reach the store before the keys' lowered schedules do:
        // restored without its queue, a lowered schedule would put the key's next arrival ahead of its old dues.
        // The whole schedule first (other bands may hold records their states count), then the states.
        for (Map.Entry<Bytes, Retiming> key : moving.entrySet()) {
            updateSchedule(key.getKey().get(), key.getValue());
        }
        flushInOrder.run();
        return done;
    }

    /**
     * The key's schedule after its queue was brought to its rule: its next arrival one interval after its last due,
     * and its release side's next slot at most one interval of the rule from now.
     */
    private void updateSchedule(byte[] recordKey, Retiming retiming) {
        KeyEntry slot = keyStates.entry(recordKey);
        KeyState state = slot.state();
        long tat = Math.min(state.tatNanos(), retiming.tat());
        long releaseTat = Math.min(state.releaseTatNanos(),
                LeakyBucket.saturatedAdd(nowNanos, retiming.rule.intervalNanos(1)));
        if (tat != state.tatNanos() || releaseTat != state.releaseTatNanos()) {
            slot.update(new KeyState(tat, state.queuedRecords(), state.queuedUnits(), state.queuedBytes(),
                    releaseTat));
        }
    }
}
