package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.metrics.TaskCounts;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.Arrival;
import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.shaping.TotalRateLimiter;
import dev.shaper.internals.shaping.VirtualClock;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.store.KeyStateStore;
import dev.shaper.internals.store.QueuedRecord;
import dev.shaper.internals.store.ScheduleKeys;
import dev.shaper.internals.store.ScheduleStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The leaky bucket of one stream task: records that may leave at once are forwarded at once; the others
 * wait in the schedule store until a wall-clock punctuator releases them in due order.
 */
public final class ShapingProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    /** How many stored key states one tick looks at for eviction. */
    static final int EVICTION_SCAN_PER_TICK = 1_000;

    /**
     * Settings of one shaping processor.
     *
     * @param releasedHeader whether shaped records carry {@code shaper.released.ms}
     * @param topicLimits     what the output topic, the rejected topic and the changelogs take
     */
    public record Settings(String scheduleStoreName, String keyStoreName, String shapedChild, String rejectedChild,
                           long tickMs, long catchUpMaxMs, double taskTotalRate, boolean releasedHeader,
                           TopicLimits topicLimits) {
    }

    private final Settings settings;
    private final RuleBook rules;
    private final ShaperMetrics metrics;
    private final long tickNanos;
    private OutputChecks outputs;
    private final Rejections rejections;

    private ProcessorContext<byte[], byte[]> context;
    private ScheduleStore schedule;
    private KeyStateStore keyStates;
    private VirtualClock clock;
    private TotalRateLimiter total;
    private TaskCounts counts;
    /** No queued record has a due before this: the drain starts here instead of wading through tombstones. */
    private Bytes scanFloor;
    /** The keys one release scan holds back; a field so that a tick costs no new hash table. */
    private final Set<Bytes> heldBack = new HashSet<>();
    /** The {@code shaper.released.ms} value of the current millisecond, shared by the records it releases. */
    private final ReleaseStamp stamp = new ReleaseStamp();

    public ShapingProcessor(Settings settings, RuleBook rules, ShaperMetrics metrics) {
        this.settings = settings;
        this.rules = rules;
        this.metrics = metrics;
        this.tickNanos = settings.tickMs() * 1_000_000L;

        this.rejections = new Rejections(settings.rejectedChild(), settings.topicLimits().rejected(),
                settings.topicLimits().rejectedTimes());
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.schedule = context.getStateStore(settings.scheduleStoreName());
        this.keyStates = context.getStateStore(settings.keyStoreName());
        long wallNow = context.currentSystemTimeMs();
        this.clock = new VirtualClock(settings.catchUpMaxMs(), keyStates.loadVirtualTime(), wallNow);
        this.total = new TotalRateLimiter(settings.taskTotalRate());
        this.scanFloor = ScheduleKeys.lowerBound(Long.MIN_VALUE);
        this.outputs = new OutputChecks(settings.topicLimits(), wallNow);
        KeyStateStore.Totals restored = keyStates.queuedTotals();
        this.counts = metrics.registerTaskCounts(restored.records(), restored.bytes());
        context.schedule(java.time.Duration.ofMillis(settings.tickMs()), PunctuationType.WALL_CLOCK_TIME,
                this::release);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        InputChecks.Outcome checked = InputChecks.check(record);
        if (checked instanceof InputChecks.Outcome.Invalid invalid) {
            reject(record, invalid.reason(), 0, invalid.detail());
            return;
        }
        long wallNow = context.currentSystemTimeMs();
        InputChecks.Outcome.Invalid unfit = outputs.whyNotShapeable(record, wallNow);
        if (unfit != null) {
            reject(record, unfit.reason(), 0, unfit.detail());
            return;
        }
        byte[] key = record.key();
        long cost = ((InputChecks.Outcome.Valid) checked).cost();
        long now = clock.peek(wallNow);
        keyStates.setVirtualNow(now);
        ShapingRule rule = rules.ruleFor(key);
        KeyStateStore.Slot slot = keyStates.slot(key);
        Arrival arrival = LeakyBucket.arrive(slot.state(), rule, now, cost, total.canPass(now));
        if (arrival instanceof Arrival.Pass pass) {
            total.onPass(now, cost);
            slot.update(pass.state());
            // A passed record carries no shaper.queued.ms (absent means 0; InputHeaders removed any forged one), and
            // its release time, if asked for, is now: a shared header value on the hot path.
            HeaderValues.setOrRemove(record.headers(), ShaperHeaders.RELEASED_MS,
                    settings.releasedHeader() ? stamp.at(wallNow) : null);
            context.forward(record, settings.shapedChild());
            counts.passed(wallNow);
        } else if (arrival instanceof Arrival.Enqueue enqueue) {
            byte[] stored = new QueuedRecord(record.timestamp(), wallNow, cost, record.headers(), record.value())
                    .encode();
            if (!schedule.fitsAlone(key, stored)) {
                InputChecks.Outcome.Invalid tooLarge = outputs.whyNotQueueable(key.length + stored.length);
                reject(record, tooLarge.reason(), 0, tooLarge.detail());
                return; // the key's state stays as it was: the record never joined its queue
            }
            long storedSize = QueuedRecord.storedSize(key, stored);
            slot.update(enqueue.state().plusQueuedBytes(storedSize));
            if (schedule.put(key, enqueue.dueNanos(), stored)) {
                // Queued records reached RocksDB ahead of the commit: their keys' states and the virtual time
                // their dues count in go with them. Under exactly-once it is all one transaction anyway; under
                // at-least-once a crash before the commit would otherwise restore records without either.
                keyStates.flushCache();
            }
            counts.queued(storedSize);
        } else if (arrival instanceof Arrival.Reject r) {
            reject(record, r.reason(), r.retryAfterMs(), r.detail());
        }
    }

    /**
     * The punctuator: releases, in due order, the queued records that have fallen due, as each key's release
     * schedule and the total cap allow. A key whose release schedule holds it back keeps its due records for
     * a later tick; the scan goes on with the other keys. The total cap stops the scan.
     */
    private void release(long wallNow) {
        long before = clock.current();
        long now = clock.advance(wallNow);
        long step = now - before;
        keyStates.setVirtualNow(now);
        keyStates.saveVirtualTime(now);

        List<ScheduleStore.Entry> released = new ArrayList<>();
        heldBack.clear();
        Bytes[] firstHeldBack = {null};
        Bytes stoppedAt = schedule.scan(scanFloor, ScheduleKeys.lowerBound(now + 1), entry -> {
            byte[] key = entry.recordKey();
            Bytes keyBytes = Bytes.wrap(key);
            if (heldBack.contains(keyBytes)) {
                return true; // FIFO: once a key is held back, so are its later records
            }
            long cost = QueuedRecord.costOf(entry.value());
            KeyStateStore.Slot slot = keyStates.slot(key);
            ShapingRule rule = rules.ruleFor(key);
            KeyState after = LeakyBucket.release(slot.state(), rule, now, LeakyBucket.releaseTolerance(rule, tickNanos),
                    cost);
            if (after == null) {
                heldBack.add(keyBytes);
                if (firstHeldBack[0] == null) {
                    firstHeldBack[0] = entry.position();
                }
                return true;
            }
            if (!total.tryRelease(now, step, cost)) {
                return false;
            }
            // The release schedule moves now, so that the key's next due record in this scan sees it.
            slot.update(after.plusQueuedBytes(-QueuedRecord.storedSize(key, entry.value())));
            released.add(entry);
            return true;
        });
        byte[] releasedAt = settings.releasedHeader() ? stamp.at(wallNow) : null;
        for (ScheduleStore.Entry entry : released) {
            byte[] key = entry.recordKey();
            QueuedRecord queued = QueuedRecord.decode(entry.value());
            schedule.release(entry);
            long waitedMs = Math.max(0, wallNow - queued.enqueuedWallMs());
            HeaderValues.set(queued.headers(), ShaperHeaders.QUEUED_MS, Long.toString(waitedMs));
            HeaderValues.setOrRemove(queued.headers(), ShaperHeaders.RELEASED_MS, releasedAt);
            Record<byte[], byte[]> shaped = new Record<>(key, queued.value(), queued.timestamp(), queued.headers());
            long storedSize = QueuedRecord.storedSize(key, entry.value());
            InputChecks.Outcome.Invalid unfit = outputs.whyNotReleasable(shaped, wallNow, queued.enqueuedWallMs());
            if (unfit != null) {
                shaped.headers().remove(ShaperHeaders.QUEUED_MS); // it was not released: no release headers
                shaped.headers().remove(ShaperHeaders.RELEASED_MS);
                reject(shaped, unfit.reason(), 0, unfit.detail());
                counts.dequeuedToRejected(storedSize);
                continue;
            }
            context.forward(shaped, settings.shapedChild());
            counts.released(wallNow, waitedMs, storedSize);
        }
        scanFloor = nextScanFloor(now, stoppedAt, firstHeldBack[0], schedule.firstOpenPosition());
        keyStates.evictIdle(now, EVICTION_SCAN_PER_TICK);
        counts.tick(wallNow);
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

    @Override
    public void close() {
        if (counts != null) {
            counts.close();
        }
    }

    private void reject(Record<byte[], byte[]> record, RejectReason reason, long retryAfterMs, String detail) {
        rejections.forward(context, record, reason, retryAfterMs, detail);
        metrics.rejected(reason);
    }
}
