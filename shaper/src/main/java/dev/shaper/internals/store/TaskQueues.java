package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.shaping.WindowCurve;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;

/**
 * The queues of one stream task: each key's state and the records waiting for their due time, over the task's
 * key-state store and schedule store. The rules about what goes where, in which order, live here and only here:
 * the encoding of a queued record, the bytes a key has queued, the key states that must reach RocksDB when queued
 * records do, and where the next release scan starts.
 *
 * <p>A key's records wait in the {@link ScheduleBand} of its rule's priority and weight. A release scan goes
 * through the bands in priority order, so when the total rate binds a band gets only what the bands of a higher
 * priority leave. Bands of one priority share what is left by weight x the rates of their waiting keys (a deficit
 * round robin across ticks: a band's unused part carries over while it has records due); within a band, waiting
 * keys share in due order, that is in proportion to their rates.
 */
public final class TaskQueues {

    /** How many ticks' parts a band that the total rate ran out before may carry over. */
    private static final double MAX_CARRIED_PARTS = 4;

    /** How many stored key states one tick looks at for eviction. */
    static final int EVICTION_SCAN_PER_TICK = 1_000;

    /** Decides, record by record in due order, what a release scan may let go. */
    public interface ReleasePolicy {
        /**
         * Whether a due record of {@code key}, of timestamp {@code timestampMs} and queued at wall time
         * {@code enqueuedWallMs}, waited too long to go, or is past its deadline ({@link QueuedRecord#NO_DEADLINE}
         * for none).
         */
        boolean expired(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs);

        /**
         * The key's state once one of its records, due at {@code dueNanos} and costing {@code cost}, is released
         * now; null if the key's own schedule or its window of releases holds it back (its later records then wait
         * too).
         */
        KeyState release(byte[] key, KeyEntry entry, long dueNanos, long cost);

        /** {@code cost} units of the key of {@code entry} leave now: {@link #release} allowed it, the total took it. */
        void released(KeyEntry entry, long cost);

        /** Whether {@code cost} more units of {@code priority} may leave now across the task; false ends the scan. */
        boolean takeTotal(long cost, int priority);

        /** How many units the task's total rate lets leave in this scan, at most; infinite without a total. */
        double availableUnits();

        /** The rule of {@code key}: its rate, priority and weight. */
        ShapingRule rule(byte[] key);

        /** The lowest priority the total rate reaches now: lower ones only give up their expired records. */
        int servedPriority();
    }

    /** Why a band's part of a release scan ended. */
    private enum ScanEnd {
        /** Nothing more of the band is due. */
        EXHAUSTED,
        /** The band used what its weight gave it this round. */
        BAND_PART,
        /** The task's total rate refused. */
        TOTAL
    }

    /** One band's queue: its schedule, where its next scan starts, what waits in it. */
    static final class BandQueue {
        final ScheduleBand band;
        final ScheduleStore schedule;
        /** No queued record of the band has a due before this: a scan starts here instead of wading through tombstones. */
        Bytes scanFloor = ScheduleKeys.lowerBound(Long.MIN_VALUE);
        long queuedRecords;
        long queuedUnits;
        /** The rates of the band's keys that have records queued, together: its claim on the total rate. */
        double waitingRate;
        /** Units the band may still take before the other bands of its priority have had their parts. */
        double deficit;

        BandQueue(ScheduleBand band, ScheduleStore schedule) {
            this.band = band;
            this.schedule = schedule;
        }

        double claim() {
            return queuedRecords > 0 ? band.weight() * Math.max(waitingRate, Double.MIN_NORMAL) : 0;
        }
    }

    /** Receives what a release scan took out of the queues, in due order, after the scan. */
    public interface ReleasedRecords {
        /** {@code record} of {@code key} is released, freeing {@code storedBytes}. */
        void released(byte[] key, QueuedRecord record, long storedBytes);

        /**
         * {@code record} of {@code key} expired (see {@link ReleasePolicy#expired}): it waited too long or is past its
         * deadline; its release frees {@code storedBytes}.
         */
        void expired(byte[] key, QueuedRecord record, long storedBytes);
    }

    /**
     * How fast the task's backlog drains from now on, for {@link #cutUnreachable}.
     *
     * @param owedNanos       the spend the task's total rate has still to earn back
     * @param ratePerSecond   the units per second the rest drains at
     * @param ceiling         when the instance's units may leave under the ceiling over every second
     * @param instanceUnitsPerTaskUnit how many of the instance's units leave for each of the task's
     */
    public record BacklogEstimate(long nowNanos, long wallNowMs, long owedNanos, double ratePerSecond,
                                  WindowCurve ceiling, double instanceUnitsPerTaskUnit) {
    }

    /** What bounds a queued record's wait, for {@link #cutUnreachable}. */
    public interface BacklogBounds {
        /**
         * The latest wall time a queued record of {@code key}, of timestamp {@code timestampMs}, queued at
         * {@code enqueuedWallMs} and with deadline {@code deadlineMs}, may leave; {@link Long#MAX_VALUE} if it may not
         * be cut (its key's rule is in shadow).
         */
        long latestReleaseWallMs(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs);

        /** The rule of {@code key} in force. */
        ShapingRule rule(byte[] key);
    }

    /** Receives the records {@link #cutUnreachable} took out, in each key's order. */
    public interface CutRecords {
        /**
         * {@code record} of {@code key} would leave at about {@code expectedWallMs}, after {@code latestWallMs}, the
         * latest it may; its removal frees {@code storedBytes}.
         */
        void cut(byte[] key, QueuedRecord record, long storedBytes, long expectedWallMs, long latestWallMs);
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
    /** The bands in release order: higher priority first, then heavier weight. */
    private final TreeMap<ScheduleBand, BandQueue> bands = new TreeMap<>(ScheduleBand.RELEASE_ORDER);
    /** The band of priority 0 and weight 1, most keys' band, kept at hand: every queued record looks its band up. */
    private final BandQueue defaultBand;
    /** The highest priority (lowest number) the total rate held back in the last release scan; none: MAX_VALUE. */
    private int heldBackPriority = Integer.MAX_VALUE;
    /** The keys one release scan holds back; a field so that a tick costs no new hash table. */
    private final Set<Bytes> heldBack = new HashSet<>();
    private final List<ScheduleStore.Entry> released = new ArrayList<>();
    /** Whether each entry of {@link #released} expired rather than was released. */
    private final List<Boolean> expired = new ArrayList<>();
    /** The rates of the keys waiting in the task: the fastest sets the release tick. */
    private final WaitingRates waitingRates = new WaitingRates();
    /** Records and units queued in the task, all keys together. */
    private long queuedRecords;
    private long queuedUnits;
    private final QueuedTotals restored;
    /** The scan in progress: its policy, band, what the band may still take, and the first record held back. */
    private ReleasePolicy scanPolicy;
    private BandQueue scanBand;
    private double scanAllowance;
    private boolean stoppedByBandPart;
    private Bytes firstHeldBack;

    /**
     * Opens the queues of a task over its stores, counting what they hold (a full scan of the key states).
     *
     * @param rules the rule of each key, which names its band
     */
    public TaskQueues(ScheduleStore schedule, KeyStateStore keyStates, Function<byte[], ShapingRule> rules) {
        this.schedule = schedule;
        this.keyStates = keyStates;
        this.defaultBand = new BandQueue(ScheduleBand.DEFAULT, schedule);
        bands.put(ScheduleBand.DEFAULT, defaultBand);
        for (ScheduleBand band : schedule.storedBands()) {
            bandQueue(band);
        }
        this.restored = keyStates.queuedTotals((key, state, band) -> {
            ShapingRule rule = rules.apply(key);
            BandQueue queue = bandQueue(band != null ? band : bandOf(rule));
            queue.queuedRecords += state.queuedRecords();
            queue.queuedUnits += state.queuedUnits();
            queue.waitingRate += rule.ratePerSecond();
            waitingRates.add(rule.ratePerSecond());
        });
        this.queuedRecords = restored.records();
        this.queuedUnits = restored.units();
    }

    private static ScheduleBand bandOf(ShapingRule rule) {
        return rule.priority() == 0 && rule.weight() == 1.0 ? ScheduleBand.DEFAULT
                : new ScheduleBand(rule.priority(), rule.weight());
    }

    private BandQueue bandQueue(ScheduleBand band) {
        return band.isDefault() ? defaultBand : bands.computeIfAbsent(band, b -> new BandQueue(b, schedule.band(b)));
    }

    /**
     * The rule a record of the entry's key is shaped by: {@code rule}, but at the priority and weight of the band its
     * queued records wait in, while it has any. A key's records stay in one band, so that they leave in order: a
     * change of a rule's rate or bounds applies at once, a change of its priority or weight once the key's queue is
     * empty.
     */
    public ShapingRule pinned(KeyEntry entry, ShapingRule rule) {
        ScheduleBand band = entry.queuedBand();
        if (band == null || (band.priority() == rule.priority() && band.weight() == rule.weight())) {
            return rule; // nothing queued, the band unknown (stored before bands were kept), or no change
        }
        return rule.withShare(band.priority(), band.weight());
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

    /** Units queued in the task now by keys of {@code priority} or a higher one (a lower number). */
    public long queuedUnitsUpTo(int priority) {
        if (bands.lastKey().priority() <= priority) {
            return queuedUnits; // every band counts: no walk over them for each record
        }
        long units = 0;
        for (BandQueue queue : bands.values()) {
            if (queue.band.priority() > priority) {
                break;
            }
            units += queue.queuedUnits;
        }
        return units;
    }

    /** Whether the total rate (or a band's part of it) held back any record in the last release scan. */
    public boolean totalHeldBack() {
        return heldBackPriority != Integer.MAX_VALUE;
    }

    /** Units queued in the task now, by priority (index: priority; a new array, as long as the lowest in use + 1). */
    public long[] queuedUnitsByPriority() {
        long[] units = new long[bands.lastKey().priority() + 1];
        for (BandQueue queue : bands.values()) {
            units[queue.band.priority()] += queue.queuedUnits;
        }
        return units;
    }

    /**
     * The rates of the keys with records queued, together, by priority (index: priority; a new array, as long as
     * the lowest in use + 1): how fast the queues could drain at most, their own rates allowing.
     */
    public double[] waitingRateByPriority() {
        double[] rates = new double[bands.lastKey().priority() + 1];
        for (BandQueue queue : bands.values()) {
            rates[queue.band.priority()] += queue.waitingRate;
        }
        return rates;
    }

    /**
     * Whether the total rate held back, in the last release scan, records of a priority higher than
     * {@code priority}: then a record of {@code priority} must not pass ahead of them.
     */
    public boolean heldBackAbove(int priority) {
        return heldBackPriority < priority;
    }

    /** Tells the queues the task's virtual time, which decides which key states are idle. */
    public void setNow(long virtualNanos, long wallMs) {
        keyStates.setNow(virtualNanos, wallMs);
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
     *
     * @param deadlineMs the wall-clock time the record must leave by, {@link QueuedRecord#NO_DEADLINE} for none
     */
    public Enqueued enqueue(KeyEntry entry, byte[] key, ShapingRule rule, long dueNanos, KeyState newState,
                            long timestamp, long enqueuedWallMs, long cost, long deadlineMs, Headers headers,
                            byte[] value) {
        byte[] stored = new QueuedRecord(timestamp, enqueuedWallMs, cost, deadlineMs, headers, value).encode();
        if (!schedule.fitsAlone(key, stored)) {
            return new Enqueued(false, key.length + stored.length);
        }
        long storedBytes = QueuedRecord.storedSize(key, stored);
        ScheduleBand pinned = entry.queuedBand();
        BandQueue band = bandQueue(pinned != null ? pinned : bandOf(rule));
        entry.queuedBand = band.band;
        if (entry.state().queuedRecords() == 0) {
            band.waitingRate += rule.ratePerSecond();
            waitingRates.add(rule.ratePerSecond());
        }
        band.queuedRecords++;
        band.queuedUnits += cost;
        entry.update(newState.plusQueuedBytes(storedBytes));
        queuedRecords++;
        queuedUnits += cost;
        if (band.schedule.put(key, dueNanos, stored)) {
            // Queued records reached RocksDB ahead of the commit: their keys' states and the virtual time their dues
            // count in go with them (under at-least-once a crash before the commit would restore records without),
            // after the other bands' pending records, which those states count too.
            flushInOrder();
        }
        return new Enqueued(true, storedBytes);
    }

    /**
     * Brings forward the queued records of keys whose rule is now faster than the spacing of their queue (a rule
     * raised while they waited), so that the backlog drains at the new rate: a record already due keeps its due; the
     * key's first record not yet due becomes due now (the release side's pacing, also brought to the new rate, spaces
     * it from the key's last release), or one interval of the rule after now behind records of its key already due;
     * each later one one interval after the one before it; and no record becomes due later than it was. The key's next arrival queues one interval after its new last due. Records
     * keep their order, band and bytes. The waiting keys' rates, which set the release tick and the bands' claims, are
     * counted again by the rules in force.
     *
     * <p>A step for a change of the rules, not for a tick: a pass over the task's queued records, and one more over
     * those of the keys that move; at most {@code maxRecords} records of each band are taken out and put back per call
     * (whole keys; one key more than that alone), the rest at the next calls, since what is taken out is held in
     * memory until it is put back.
     *
     * @param ruleOf the rule of a key now
     * @return true when nothing is left to bring forward; false when the next call goes on
     */
    public boolean bringForward(long nowNanos, Function<byte[], ShapingRule> ruleOf, int maxRecords) {
        if (queuedRecords <= 0) {
            return true;
        }
        waitingRates.clear(); // counted again from the keys' rules in force
        boolean done = true;
        for (BandQueue queue : bands.values()) {
            queue.waitingRate = 0;
            if (queue.queuedRecords > 0) {
                done &= new QueueRetiming(queue, this::flushInOrder, keyStates, waitingRates, nowNanos, ruleOf)
                        .bringForward(maxRecords);
            }
        }
        return done;
    }

    /**
     * Lets go, band by band in release order and in due order within a band, the queued records due by virtual time
     * {@code nowNanos} that {@code policy} releases, and hands them to {@code sink} after each band's scan. A key held
     * back keeps its due records for a later scan, which goes on with the other keys; the total cap ends a band's
     * scan, and the later bands then only give up their expired records.
     */
    public void releaseDue(long nowNanos, ReleasePolicy policy, ReleasedRecords sink) {
        heldBackPriority = Integer.MAX_VALUE;
        if (queuedRecords <= 0) {
            return; // a tick's cost follows what is queued: with nothing queued, no store is read
        }
        List<BandQueue> samePriority = new ArrayList<>(2);
        for (BandQueue queue : bands.values()) {
            if (!samePriority.isEmpty() && samePriority.get(0).band.priority() != queue.band.priority()) {
                releasePriority(samePriority, nowNanos, policy, sink);
                samePriority.clear();
            }
            samePriority.add(queue);
        }
        releasePriority(samePriority, nowNanos, policy, sink);
    }

    /** The bands of one priority: one after the other, or, with several and a total rate, each by its weight. */
    private void releasePriority(List<BandQueue> queues, long nowNanos, ReleasePolicy policy,
                                 ReleasedRecords sink) {
        if (queues.get(0).band.priority() > policy.servedPriority()) {
            for (BandQueue queue : queues) {
                scanBand(queue, 0, nowNanos, policy, sink); // the capacity does not reach this priority
            }
            return;
        }
        double available = queues.size() == 1 ? Double.POSITIVE_INFINITY : policy.availableUnits();
        if (Double.isInfinite(available)) {
            for (BandQueue queue : queues) {
                scanBand(queue, Double.POSITIVE_INFINITY, nowNanos, policy, sink);
            }
            return;
        }
        // Rounds of a deficit round robin: each band with records due gets its part of what the total lets leave,
        // by weight x its waiting keys' rates; what a band leaves unused goes to the others in the next round. A part
        // the total ran out before (an earlier band took the cap's slack) carries over to the next tick, up to a few
        // ticks' worth, so the order of the bands does not decide their shares.
        available = Math.max(0, available - 1); // the cap's one unit of slack is not time that accrued
        List<BandQueue> wanting = new ArrayList<>(queues);
        boolean totalRefused = false;
        for (int round = 0; round <= queues.size() && !wanting.isEmpty() && !totalRefused; round++) {
            double claims = 0;
            for (BandQueue queue : wanting) {
                claims += queue.claim();
            }
            List<BandQueue> stillWanting = new ArrayList<>(wanting.size());
            for (BandQueue queue : wanting) {
                double quantum = claims > 0 ? available * queue.claim() / claims : 0;
                queue.deficit = Math.min(queue.deficit + quantum, MAX_CARRIED_PARTS * quantum + 1);
                ScanEnd end = scanBand(queue, totalRefused ? 0 : queue.deficit, nowNanos, policy, sink);
                if (end == ScanEnd.EXHAUSTED) {
                    queue.deficit = 0; // nothing more due: no part carried over
                } else if (!totalRefused) {
                    queue.deficit = scanAllowance;
                    totalRefused = end == ScanEnd.TOTAL;
                    if (end == ScanEnd.BAND_PART) {
                        stillWanting.add(queue);
                    }
                }
            }
            wanting = stillWanting;
            available = Math.max(0, policy.availableUnits() - 1);
            if (!(available > 0)) {
                return;
            }
        }
    }

    /** One band's part of a release scan, taking at most {@code allowance} units. */
    private ScanEnd scanBand(BandQueue queue, double allowance, long nowNanos, ReleasePolicy policy,
                             ReleasedRecords sink) {
        released.clear();
        expired.clear();
        heldBack.clear();
        firstHeldBack = null;
        scanPolicy = policy;
        scanBand = queue;
        scanAllowance = allowance;
        stoppedByBandPart = false;
        Bytes stoppedAt = queue.schedule.scan(queue.scanFloor, ScheduleKeys.lowerBound(nowNanos + 1), this::visit);
        scanPolicy = null;
        scanBand = null;
        for (int i = 0; i < released.size(); i++) {
            ScheduleStore.Entry entry = released.get(i);
            queue.schedule.release(entry);
            QueuedRecord record = QueuedRecord.decode(entry.value());
            queuedRecords--;
            queuedUnits -= record.cost();
            queue.queuedRecords--;
            queue.queuedUnits -= record.cost();
            long storedBytes = QueuedRecord.storedSize(entry.recordKey(), entry.value());
            if (expired.get(i)) {
                sink.expired(entry.recordKey(), record, storedBytes);
            } else {
                sink.released(entry.recordKey(), record, storedBytes);
            }
        }
        if (queue.queuedRecords <= 0) {
            queue.waitingRate = 0; // no drift: nothing waits in the band
        }
        if (queuedRecords <= 0) {
            waitingRates.clear();
        }
        released.clear();
        expired.clear();
        queue.scanFloor = nextScanFloor(nowNanos, stoppedAt, firstHeldBack, queue.schedule.firstOpenPosition());
        if (stoppedAt == null) {
            return ScanEnd.EXHAUSTED;
        }
        // Either way the total rate held the band back: its part of it, or all of it.
        heldBackPriority = Math.min(heldBackPriority, queue.band.priority());
        return stoppedByBandPart ? ScanEnd.BAND_PART : ScanEnd.TOTAL;
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
        if (scanPolicy.expired(key, QueuedRecord.timestampOf(entry.value()),
                QueuedRecord.enqueuedWallMsOf(entry.value()), QueuedRecord.deadlineOf(entry.value()))) {
            // Out of the queue without a release: the key's release schedule stays, and the cap is not spent.
            KeyState left = LeakyBucket.expire(slot.state(), cost);
            slot.update(left.plusQueuedBytes(-QueuedRecord.storedSize(key, entry.value())));
            if (left.queuedRecords() == 0) {
                stoppedWaiting(scanPolicy.rule(key));
            }
            released.add(entry);
            expired.add(Boolean.TRUE);
            return true;
        }
        KeyState after = scanPolicy.release(key, slot, entry.dueNanos(), cost);
        if (after == null) {
            heldBack.add(wrapped);
            if (firstHeldBack == null) {
                firstHeldBack = entry.position();
            }
            return true;
        }
        if (cost > scanAllowance) {
            stoppedByBandPart = true;
            return false;
        }
        if (!scanPolicy.takeTotal(cost, scanBand.band.priority())) {
            return false;
        }
        scanAllowance -= cost;
        scanPolicy.released(slot, cost);
        // The key's state moves now, so that its next due record in this scan sees it.
        slot.update(after.plusQueuedBytes(-QueuedRecord.storedSize(key, entry.value())));
        if (after.queuedRecords() == 0) {
            stoppedWaiting(scanPolicy.rule(key));
        }
        released.add(entry);
        expired.add(Boolean.FALSE);
        return true;
    }

    /** A key of the band being scanned has no record queued any more. */
    private void stoppedWaiting(ShapingRule rule) {
        scanBand.waitingRate = Math.max(0, scanBand.waitingRate - rule.ratePerSecond());
        waitingRates.remove(rule.ratePerSecond());
    }

    /**
     * Takes out the queued records that can no longer leave by their bound at the backlog's rate now (the capacity
     * fell, the task's part shrank), and hands them to {@code sink}: a record's expected release is the later of its
     * key's due and the units kept ahead of it in release order at {@code estimate}'s rate, as an arrival's estimate
     * counts them. What stays keeps its dues and order; the keys' schedules do not move, as for an expired record.
     * A pass over the task's queued records, and one more over the bands with records cut.
     *
     * @return how many records were cut
     */
    public int cutUnreachable(BacklogEstimate estimate, BacklogBounds bounds, CutRecords sink) {
        if (queuedRecords <= 0 || !(estimate.ratePerSecond() > 0)) {
            return 0;
        }
        BacklogCut cut = new BacklogCut(estimate, bounds);
        int[] count = {0};
        BacklogCut.Removal removal = new BacklogCut.Removal() {
            @Override
            public int queuedRecordsOf(byte[] key) {
                return keyStates.entry(key).state().queuedRecords();
            }

            @Override
            public void removed(BandQueue queue, byte[] key, byte[] value, long expectedWallMs, long latestWallMs) {
                QueuedRecord record = QueuedRecord.decode(value);
                long storedBytes = QueuedRecord.storedSize(key, value);
                KeyEntry slot = keyStates.entry(key);
                KeyState left = LeakyBucket.expire(slot.state(), record.cost());
                slot.update(left.plusQueuedBytes(-storedBytes));
                queuedRecords--;
                queuedUnits -= record.cost();
                queue.queuedRecords--;
                queue.queuedUnits -= record.cost();
                if (left.queuedRecords() == 0) {
                    double rate = bounds.rule(key).ratePerSecond();
                    queue.waitingRate = Math.max(0, queue.waitingRate - rate);
                    waitingRates.remove(rate);
                }
                count[0]++;
                sink.cut(key, record, storedBytes, expectedWallMs, latestWallMs);
            }
        };
        if (cut.run(new ArrayList<>(bands.values()), removal)) {
            flushInOrder();
        }
        if (queuedRecords <= 0) {
            waitingRates.clear();
        }
        return count[0];
    }

    /** The fastest rate among the keys with records queued, in records per second; 0 when none waits. */
    public double fastestWaitingRate() {
        return waitingRates.fastest();
    }

    /**
     * Writes what both stores hold in memory: the schedule, every band's, then the key states that count its records,
     * so that what reaches RocksDB ahead of a commit never has a state counting a record its schedule lacks.
     */
    private void flushInOrder() {
        schedule.flushCache();
        keyStates.flushCache();
    }

    /**
     * Writes the key states ahead of the commit if their store asks to (its changed states passed its share of the
     * instance's bound), and the schedule's pending records and removals first, so that under at-least-once what
     * reaches RocksDB and the changelogs before a commit (and is restored after a crash) holds both sides of every
     * change: never a state counting a record its schedule lacks, nor a schedule holding a record its state no
     * longer counts. Call it between records and ticks, never within a scan or a step that takes records out and
     * puts them back.
     */
    public void writeAheadIfDue() {
        if (keyStates.writeAheadDue()) {
            schedule.flushCache();
            keyStates.writeAhead();
        }
    }

    /** At the start of a tick: the virtual time now, saved with the states it counts in. */
    public void startTick(long nowNanos, long wallMs) {
        keyStates.setNow(nowNanos, wallMs);
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
