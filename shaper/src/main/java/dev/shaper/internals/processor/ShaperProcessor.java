package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperConfig;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.RestoreListener;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.capacity.TaskCapacity;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.metrics.TaskCounts;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RuleSet;
import dev.shaper.internals.shaping.Arrival;
import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.LeakyBucket;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.internals.shaping.ReleaseWindow;
import dev.shaper.internals.shaping.ShadowBucket;
import dev.shaper.internals.shaping.StallMeter;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.shaping.TotalRateLimiter;
import dev.shaper.internals.shaping.VirtualClock;
import dev.shaper.internals.store.KeyEntry;
import dev.shaper.internals.store.QueuedRecord;
import dev.shaper.internals.store.QueuedTotals;
import dev.shaper.internals.store.ScheduleStore;
import dev.shaper.internals.store.TaskQueues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The shaper of one stream task, one pass per record: the input checks, admission, then the key's leaky bucket,
 * which lets the record leave at once or queues it in the {@link TaskQueues}; a wall-clock punctuator releases the
 * queued records as they fall due. A record any step refuses goes to the rejected topic with the reason.
 *
 * <p>A step whose rule is in shadow decides as it would, reports the decision ({@link ShadowReports}) and lets the
 * record go on: to the next step, or, from the bucket, to the output topic at once.
 */
public final class ShaperProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    /**
     * Settings of one processor.
     *
     * @param taskTotalRate      this task's fixed share of {@code shaper.shaping.total.rate}, when there is no pool
     * @param releasedHeader     whether shaped records carry {@code shaper.released.ms}
     * @param topicLimits        what the output topic, the rejected topic and the changelogs take
     * @param admissionKeyHeader the header holding the admission key, or null for the record key
     * @param maxTaskQueue       the most records the task may have queued, all its keys together
     * @param shadowChild        the child that leads to the shadow topic, or null when there is none
     * @param delayFromTimestamp whether a record's wait starts at its timestamp (its arrival if that is earlier), or
     *                           at its arrival ({@code shaper.shaping.max.delay.from})
     */
    public record Settings(String scheduleStoreName, String keyStoreName, String shapedChild, String rejectedChild,
                           long tickMs, long catchUpMaxMs, double taskTotalRate, boolean releasedHeader,
                           TopicLimits topicLimits, String admissionKeyHeader, int maxTaskQueue, String shadowChild,
                           boolean delayFromTimestamp) {
    }

    private final Settings settings;
    private final RuleBook rules;
    private final ShaperMetrics metrics;
    /** The release tick now: it follows the fastest key waiting (see ReleasePace#tickMs). */
    private long tickMs;
    private long tickNanos;
    private Cancellable punctuator;
    /** Wall time of the last release tick, to measure how late the next one comes. */
    private long lastTickWallMs;
    /** Wall time the task (re)started: until StallMeter.START_UP_MS later, a late tick is forgotten, not owed. */
    private long startedWallMs;
    private StallMeter stalls;
    /** The version of the rules the queues' dues were last brought to (see {@link TaskQueues#bringForward}). */
    private RuleSet rulesSeen;
    /** Whether a bringing forward is under way: it goes on at the next tick. */
    private boolean bringingForward;
    /** The most queued records one tick takes out and puts back to bring them forward, per band. */
    private static final int BRING_FORWARD_BATCH = 50_000;
    /** What a key may owe at most: {@code shaper.shaping.catchup.max.ms}. */
    private final long catchUpMaxNanos;
    /** The least of {@link #burstNanos()}. */
    private static final long MIN_BURST_NANOS = 100_000_000L;
    /** Null when no key has an admission limit. */
    private final AdmissionStep admission;
    /** The instance's pool of the total rate, shared by demand; null for a fixed share per task. */
    private final CapacityPool capacityPool;
    private final TaskBacklogs backlogs;
    private final RestoreListener restores;
    private final InputGate inputGate;
    private final Rejections rejections;
    private final ShadowReports shadowReports;
    /** The {@code shaper.released.ms} value of the current millisecond, shared by the records it releases. */
    private final ReleaseStamp stamp = new ReleaseStamp();
    private final BucketRelease bucketRelease = new BucketRelease();
    private final LeavingRecords leaving = new LeavingRecords();
    private final UnreachableRecords unreachable = new UnreachableRecords();
    /** When the queued records are checked again against their bounds: the rate the task's backlog drains at fell. */
    private QueueRecheck recheck;

    private ProcessorContext<byte[], byte[]> context;
    private TaskQueues queues;
    private OutputChecks outputs;
    private VirtualClock clock;
    private TaskCapacity capacity;
    private TotalRateLimiter total;
    private TaskCounts counts;

    /**
     * @param admission    the instance's admission; null when {@code rules} set no admission limit
     * @param capacityPool the instance's pool of the total rate, or null for the fixed share in {@code settings}
     * @param backlogs     where the task publishes its backlog behind the total rate, once per tick
     * @param restores     told at each start what the task's queues held when they opened
     * @param inputGate    whether new input may be taken; while it is closed every arriving record is rejected
     */
    public ShaperProcessor(Settings settings, RuleBook rules, AdmissionController admission,
                           CapacityPool capacityPool, TaskBacklogs backlogs, RestoreListener restores,
                           InputGate inputGate, ShaperMetrics metrics) {
        this.settings = settings;
        this.rules = rules;
        this.capacityPool = capacityPool;
        this.backlogs = backlogs;
        this.restores = restores;
        this.inputGate = inputGate;
        this.metrics = metrics;
        this.catchUpMaxNanos = settings.catchUpMaxMs() * 1_000_000L;
        this.admission = admission == null ? null : new AdmissionStep(admission, rules, settings.admissionKeyHeader());
        this.rejections = new Rejections(settings.rejectedChild(), settings.topicLimits().rejected(),
                settings.topicLimits().rejectedTimes());
        this.shadowReports = new ShadowReports(settings.shadowChild(), settings.topicLimits().shadow(),
                settings.topicLimits().shadowTimes(), metrics);
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        ScheduleStore schedule = context.getStateStore(settings.scheduleStoreName());
        this.queues = new TaskQueues(schedule, context.getStateStore(settings.keyStoreName()), rules::ruleFor);
        // Before the task takes its part of the capacity: a warm-up this starts applies from its first rate on.
        restores.restored(context.taskId().partition(), queues.restoredTotals().records());
        long wallNow = context.currentSystemTimeMs();
        this.clock = new VirtualClock(settings.catchUpMaxMs(), queues.savedVirtualTime(), wallNow);
        if (capacity != null) {
            capacity.close(); // initialised again: one place in the pool per task
        }
        this.capacity = capacityPool == null ? TaskCapacity.fixed(settings.taskTotalRate())
                : TaskCapacity.pooled(capacityPool, context.taskId().partition(), wallNow);
        this.total = capacity.limiter();
        this.outputs = new OutputChecks(settings.topicLimits(), wallNow);
        QueuedTotals restored = queues.restoredTotals();
        this.counts = metrics.registerTaskCounts(restored.records(), restored.bytes());
        this.punctuator = null;
        this.stalls = new StallMeter(settings.catchUpMaxMs() * 1_000_000L, wallNow);
        this.lastTickWallMs = wallNow;
        this.startedWallMs = wallNow;
        // The restored queues keep their dues: a task's start does not read its whole schedule (a rule raised while
        // it was stopped applies to what is queued at the next change)
        this.rulesSeen = rules.version();
        this.bringingForward = false;
        this.recheck = new QueueRecheck();
        followWaitingRates();
    }

    /**
     * The longest step a release of the total rate serves whole: twice the tick, and at least 100 ms, covers a busy
     * stream thread's late ticks; the total rate makes up a longer stall at twice its rate, not at once, and the
     * ceiling's window keeps every second within it (see TotalRateLimiter, CapacityPool#mayRelease).
     */
    private long burstNanos() {
        return Math.max(2 * tickNanos, MIN_BURST_NANOS);
    }

    /** Schedules the release at the tick the fastest waiting key needs, if it is not scheduled at that tick yet. */
    private void followWaitingRates() {
        long wanted = ReleasePace.tickMs(queues.fastestWaitingRate(), settings.tickMs());
        if (punctuator != null && wanted == tickMs) {
            return;
        }
        if (punctuator != null) {
            punctuator.cancel();
        }
        tickMs = wanted;
        tickNanos = wanted * 1_000_000L;
        lastTickWallMs = context.currentSystemTimeMs(); // the next tick's lateness counts from here
        punctuator = context.schedule(Duration.ofMillis(wanted), PunctuationType.WALL_CLOCK_TIME, this::release);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        take(record);
        queues.writeAheadIfDue(); // between records: both stores written together, if at all
    }

    /** What becomes of one input record: passed, queued or rejected. */
    private void take(Record<byte[], byte[]> record) {
        long wallNow = context.currentSystemTimeMs();
        String closed = inputGate.closedBecause();
        if (closed != null) {
            reject(record, new Refusal(RejectReason.INPUT_REPARTITIONED, closed));
            return;
        }
        CheckOutcome checked = InputChecks.check(record);
        if (checked instanceof Refusal refusal) {
            reject(record, refusal);
            return;
        }
        Refusal unfit = outputs.whyNotShapeable(record, wallNow);
        if (unfit != null) {
            reject(record, unfit);
            return;
        }
        CheckOutcome.Valid valid = (CheckOutcome.Valid) checked;
        if (valid.deadlineMs() < wallNow) {
            // Before admission: a record that cannot leave in time must not take tokens.
            reject(record, new Refusal(RejectReason.DEADLINE_EXCEEDED, "arrived " + (wallNow - valid.deadlineMs())
                    + " ms after its deadline " + valid.deadlineMs() + " (" + ShaperHeaders.DEADLINE_MS + ")"));
            return;
        }
        // The wait max.delay.ms bounds starts at the record's timestamp (never in the future; 0 or less is no
        // timestamp at all): what the shaper lagged its input is waiting too, for its producer and its database.
        long waitedMs = settings.delayFromTimestamp() && record.timestamp() > 0
                ? Math.max(0, wallNow - record.timestamp()) : 0;
        ShapingRule keyRule = rules.ruleFor(record.key());
        if (waitedMs > keyRule.maxDelayMs() && !keyRule.shadow()) {
            Refusal late = lateArrival(record, keyRule, waitedMs, wallNow);
            // Before admission: a record that cannot leave in time must not take tokens.
            reject(record, late);
            return;
        }
        long cost = valid.cost();
        KeyEntry entry = null;
        boolean refusedInShadow = false;
        if (admission != null) {
            entry = admission.usesKeyEntry() ? queues.entry(record.key()) : null;
            Refusal limited = admission.admit(record, cost, entry);
            if (limited != null && !limited.shadow()) {
                reject(record, limited);
                return;
            }
            if (limited != null) {
                shadowReports.wouldReject(context, record, limited);
                refusedInShadow = true; // an enforced admission would have stopped it: the bucket never sees it
            }
        }
        // In the task's first second the ticks move the clock by one tick each: arrivals see no further, so that
        // the time they see never goes back at the next tick (a key's schedule would then be ahead of it)
        long now = startingUp(wallNow) ? clock.peek(wallNow, tickNanos) : clock.peek(wallNow);
        queues.setNow(now, wallNow);
        if (entry == null) {
            entry = queues.entry(record.key());
        }
        ShapingRule rule = queues.pinned(entry, keyRule);
        if (rule.shadow()) {
            shapeInShadow(record, valid, entry, rule, now, wallNow, refusedInShadow);
        } else {
            shape(record, valid, entry, rule, now, wallNow, waitedMs * 1_000_000L);
        }
    }

    /**
     * The refusal of a record that waited {@code waitedMs} since its timestamp before it arrived, longer than its
     * key's {@code max.delay.ms}. A retry starts afresh: it is accepted once the key's wait and the total rate's
     * backlog are within the bound.
     */
    private Refusal lateArrival(Record<byte[], byte[]> record, ShapingRule rule, long waitedMs, long wallNow) {
        long now = clock.peek(wallNow);
        long tat = queues.entry(record.key()).state().tatNanos();
        long keyWait = tat > now ? tat - now : 0; // not max(0, tat - now): a key never seen has MIN_VALUE
        long capWait = backlogNanos(now, wallNow, queues.queuedUnitsUpTo(rule.priority()));
        long retryAfterMs = LeakyBucket.nanosToRetryMs(Math.max(keyWait, capWait) - rule.maxDelayMs() * 1_000_000L);
        return new Refusal(RejectReason.DELAY_EXCEEDED, retryAfterMs, "arrived " + waitedMs + " ms after its"
                + " timestamp " + record.timestamp() + ", more than this key's max.delay.ms of " + rule.maxDelayMs()
                + " ms (" + ShaperConfig.SHAPING_MAX_DELAY_FROM_CONFIG + "=" + ShaperConfig.MAX_DELAY_FROM_TIMESTAMP
                + ")");
    }

    /**
     * A key whose rule is in shadow: its bucket decides what it would do ({@link ShadowBucket}), the decision is
     * reported, and the record leaves at once. A key that still has records queued from before its rule went into
     * shadow queues the record right behind them instead, so that its records keep their order.
     *
     * @param refusedInShadow admission in shadow would have refused the record: the bucket would never have seen it
     */
    private void shapeInShadow(Record<byte[], byte[]> record, CheckOutcome.Valid valid, KeyEntry entry,
                               ShapingRule rule, long now, long wallNow, boolean refusedInShadow) {
        long cost = valid.cost();
        KeyState state = entry.state();
        KeyState next = state;
        shadowReports.decided();
        if (!refusedInShadow) {
            Arrival wouldBe = ShadowBucket.arrive(state, rule, now, cost);
            if (wouldBe instanceof Arrival.Pass pass) {
                next = pass.state();
            } else if (wouldBe instanceof Arrival.Enqueue enqueue) {
                long waitNanos = enqueue.dueNanos() - now;
                Refusal unwanted = waitRefused(valid, waitNanos, wallNow);
                if (unwanted != null) {
                    shadowReports.wouldReject(context, record, unwanted.inShadow());
                } else {
                    shadowReports.wouldQueue(context, record, LeakyBucket.nanosToRetryMs(waitNanos));
                    next = enqueue.state();
                }
            } else if (wouldBe instanceof Arrival.Reject refused) {
                shadowReports.wouldReject(context, record, new Refusal(refused.reason(), refused.retryAfterMs(),
                        refused.detail(), true));
            }
        }
        if (state.queuedRecords() > 0) {
            // Records from before its rule went into shadow still wait: it queues behind them, its state as it was
            enqueue(record, valid, entry, rule, ShadowBucket.behindQueue(state, now, cost), wallNow);
            return;
        }
        // Shadow traffic reaches the database as well: the total rate counts it.
        total.onPass(now, cost);
        capacity.used(cost, rule.priority(), wallNow);
        queues.pass(entry, next);
        forwardAtOnce(record, wallNow);
    }

    /** The leaky bucket: the record leaves now, waits in its key's queue, or is refused. */
    private void shape(Record<byte[], byte[]> record, CheckOutcome.Valid valid, KeyEntry entry, ShapingRule rule,
                       long now, long wallNow, long waitedNanos) {
        long cost = valid.cost();
        // A record may not pass ahead of records of a higher priority that the total rate holds back, nor at a
        // priority the capacity does not reach now.
        boolean totalAllows = total.canPass(now) && !queues.heldBackAbove(rule.priority())
                && rule.priority() <= capacity.servedPriority() && capacity.mayRelease(wallNow);
        // Nothing queued and the cap open: no backlog in front of the cap, and nothing to compute per record. A
        // record waits behind what is queued at its priority or a higher one.
        long capWait = totalAllows && queues.queuedUnits() == 0 ? 0
                : backlogNanos(now, wallNow, queues.queuedUnitsUpTo(rule.priority()));
        ReleaseWindow window = currentWindow(entry, wallNow);
        boolean windowAllows = window == null
                || window.allows(wallNow, ReleasePace.maxInOneSecond(rule.ratePerSecond()));
        Arrival arrival = LeakyBucket.arrive(entry.state(), rule, now, cost, totalAllows && windowAllows, capWait,
                waitedNanos);
        if (arrival instanceof Arrival.Pass pass) {
            if (window != null) {
                window.record(wallNow, cost);
            }
            total.onPass(now, cost);
            capacity.used(cost, rule.priority(), wallNow);
            queues.pass(entry, pass.state());
            forwardAtOnce(record, wallNow);
        } else if (arrival instanceof Arrival.Enqueue enqueue) {
            // Its wait: to its due, or to its key's next release slot if that is later, or behind the total rate.
            long waitNanos = Math.max(Math.max(enqueue.dueNanos(), entry.state().releaseTatNanos()) - now, capWait);
            Refusal unwanted = waitRefused(valid, waitNanos, wallNow);
            if (unwanted != null) {
                reject(record, unwanted); // the key's state stays as it was: the record never joined the queue
                return;
            }
            if (window == null) {
                // Its releases will be counted from now on; it may have passed records at its rate until now.
                entry.releases(entry.state().tatNanos() > now - ReleaseWindow.WINDOW_MS * 1_000_000L
                        ? ReleaseWindow.assumingFullRate(rule.ratePerSecond(), wallNow) : new ReleaseWindow());
            }
            enqueue(record, valid, entry, rule, enqueue, wallNow);
        } else if (arrival instanceof Arrival.Reject refused) {
            reject(record, new Refusal(refused.reason(), refused.retryAfterMs(), refused.detail()));
        }
    }

    /**
     * The key's window of releases, if it may still hold a record back; a window that holds nothing for a key with
     * nothing queued is forgotten, as its key's schedule alone then decides.
     */
    private static ReleaseWindow currentWindow(KeyEntry entry, long wallNow) {
        ReleaseWindow window = entry.releases();
        if (window != null && entry.state().queuedRecords() == 0 && window.isEmptyAt(wallNow)) {
            entry.releases(null);
            return null;
        }
        return window;
    }

    /** A record leaves at once, without waiting. */
    private void forwardAtOnce(Record<byte[], byte[]> record, long wallNow) {
        // A passed record carries no shaper.queued.ms (absent means 0; InputHeaders removed any forged one).
        HeaderValues.setOrRemove(record.headers(), ShaperHeaders.RELEASED_MS,
                settings.releasedHeader() ? stamp.at(wallNow) : null);
        context.forward(record, settings.shapedChild());
        counts.passed(wallNow);
    }

    /** Queues a record until its due, if the task's queues and the schedule store take it. */
    private void enqueue(Record<byte[], byte[]> record, CheckOutcome.Valid valid, KeyEntry entry, ShapingRule rule,
                         Arrival.Enqueue enqueue, long wallNow) {
        if (queues.queuedRecords() >= settings.maxTaskQueue()) {
            reject(record, new Refusal(RejectReason.QUEUE_FULL, settings.tickMs(), "the queues of this partition"
                    + " hold " + queues.queuedRecords() + " records, the most allowed is "
                    + settings.maxTaskQueue() + " (shaper.shaping.max.task.queue)"));
            return;
        }
        TaskQueues.Enqueued queued = queues.enqueue(entry, record.key(), rule, enqueue.dueNanos(), enqueue.state(),
                record.timestamp(), wallNow, valid.cost(), valid.deadlineMs(), record.headers(), record.value());
        if (queued.stored()) {
            recheck.queuedAt(total.estimateRate());
            counts.queued(queued.storedBytes());
            if (enqueue.state().queuedRecords() == 1) {
                followWaitingRates(); // a key started waiting: it may need a finer tick from now on
            }
        } else {
            reject(record, outputs.whyNotQueueable(queued.storedBytes()));
        }
    }

    /**
     * Why a record that would wait {@code waitNanos} does not, by its own choice: its expected release is after its
     * deadline, or it asked to be rejected rather than queued ({@code shaper.on.limit: reject}); null if it waits.
     */
    private static Refusal waitRefused(CheckOutcome.Valid valid, long waitNanos, long wallNow) {
        long waitMs = LeakyBucket.nanosToRetryMs(waitNanos); // rounded up: no retry sooner than the wait
        if (wallNow + waitMs > valid.deadlineMs()) {
            return new Refusal(RejectReason.DEADLINE_EXCEEDED, "would be released in " + waitMs + " ms, at "
                    + (wallNow + waitMs) + ", after its deadline " + valid.deadlineMs() + " ("
                    + ShaperHeaders.DEADLINE_MS + ")");
        }
        if (valid.rejectsWaiting()) {
            return new Refusal(RejectReason.RATE_LIMITED, waitMs, "would wait " + waitMs + " ms in its key's queue,"
                    + " and asked to be rejected instead (" + ShaperHeaders.ON_LIMIT + ": "
                    + ShaperHeaders.ON_LIMIT_REJECT + ")");
        }
        return null;
    }

    /** The punctuator: releases the queued records that have fallen due, as their keys' rules and the total cap allow. */
    private void release(long wallNow) {
        releaseDue(wallNow);
        queues.writeAheadIfDue(); // after the tick's scans and steps: both stores written together, if at all
    }

    private void releaseDue(long wallNow) {
        long lateNanos = (wallNow - lastTickWallMs - tickMs) * 1_000_000L;
        // What a tick this late keeps back beyond what the release makes up at once (its routine lateness, and the
        // step the total rate serves whole)
        long madeUpAtOnce = Math.max(stalls.routineLateNanos(), burstNanos() - tickNanos);
        if (!startingUp(wallNow) && lateNanos > madeUpAtOnce) {
            counts.stalled(lateNanos - madeUpAtOnce);
        }
        stalls.tick(lateNanos, wallNow);
        lastTickWallMs = wallNow;
        long before = clock.current();
        // A task that just started (a restore, the intake of what waited for it) resumes at its rate: a late tick
        // moves its clock one tick, so that nothing falls due behind it to be made up.
        long now = startingUp(wallNow) ? clock.advance(wallNow, tickNanos) : clock.advance(wallNow);
        queues.startTick(now, wallNow);
        RuleSet version = rules.version();
        if (version != rulesSeen || bringingForward) {
            // A rule raised while records waited: they are brought forward to its rate (a lower rate needs nothing,
            // the release side paces every key by its rule in force)
            rulesSeen = version;
            bringingForward = !queues.bringForward(now, rules::ruleFor, BRING_FORWARD_BATCH);
        }
        if (capacity.isPooled()) { // the figures cost two arrays a tick, at ticks down to 1 ms
            capacity.tick(wallNow, queues.queuedUnitsByPriority(), queues.waitingRateByPriority());
        }
        cutUnreachable(now, wallNow);
        bucketRelease.startTick(now, now - before, wallNow);
        leaving.wallNow = wallNow;
        queues.releaseDue(now, bucketRelease, leaving);
        if (!queues.totalHeldBack()) {
            capacity.giveUpUnused(now, Math.min(now - before, burstNanos()), settings.tickMs() / 1000.0);
        }
        queues.endTick(now);
        followWaitingRates();
        counts.tick(wallNow);
        counts.pace(tickMs, stalls.routineLateNanos() / 1_000_000L);
        if (!total.isUnlimited()) {
            backlogs.publish(context.taskId().partition(), total.backlogNanos(now, queues.queuedUnits()));
        }
    }

    /**
     * When the rate the task's backlog drains at fell below what queued records were accepted at (the capacity was
     * cut, the task's part shrank), those that can no longer leave by their bound are rejected now, with a
     * retry-after, rather than left to expire at it.
     */
    private void cutUnreachable(long now, long wallNow) {
        double rate = total.estimateRate();
        if (!recheck.isDue(rate, queues.queuedRecords(), wallNow)) {
            return;
        }
        long started = System.nanoTime();
        queues.cutUnreachable(new TaskQueues.BacklogEstimate(now, wallNow, total.owedNanos(now), rate,
                capacity.ceilingCurve(wallNow), capacity.instanceUnitsPerTaskUnit()), unreachable, unreachable);
        recheck.checked(rate, wallNow, System.nanoTime() - started);
        unreachable.reject(now, wallNow, rate);
    }

    /**
     * How long a record behind {@code queuedUnits} waits for the task's part of the capacity: the total rate's
     * backlog, after whatever the ceiling's full last second holds back (a fall of the capacity leaves releases made
     * at the larger one in it).
     */
    private long backlogNanos(long now, long wallNow, long queuedUnits) {
        return total.backlogNanos(now, queuedUnits, capacity.msUntilRoom(wallNow) * 1_000_000L);
    }

    /** Whether the task started less than {@link StallMeter#START_UP_MS} ago: its ticks resume at the rate. */
    private boolean startingUp(long wallNow) {
        return wallNow - startedWallMs < StallMeter.START_UP_MS;
    }

    private void forwardReleased(byte[] key, QueuedRecord queued, long storedBytes, long wallNow) {
        long waitedMs = Math.max(0, wallNow - queued.enqueuedWallMs());
        HeaderValues.set(queued.headers(), ShaperHeaders.QUEUED_MS, Long.toString(waitedMs));
        HeaderValues.setOrRemove(queued.headers(), ShaperHeaders.RELEASED_MS,
                settings.releasedHeader() ? stamp.at(wallNow) : null);
        Record<byte[], byte[]> shaped = new Record<>(key, queued.value(), queued.timestamp(), queued.headers());
        Refusal unfit = outputs.whyNotReleasable(shaped, wallNow, queued.enqueuedWallMs());
        if (unfit != null) {
            shaped.headers().remove(ShaperHeaders.RELEASED_MS); // it was not released; it did wait
            reject(shaped, unfit);
            counts.dequeuedToRejected(storedBytes);
            return;
        }
        context.forward(shaped, settings.shapedChild());
        counts.released(wallNow, waitedMs, storedBytes);
    }

    /**
     * {@code record} with {@link ShaperHeaders#QUEUED_MS}, how long {@code queued} waited in its queue: a record
     * rejected after waiting says so, and one refused at arrival carries none.
     */
    private static Record<byte[], byte[]> waited(Record<byte[], byte[]> record, QueuedRecord queued, long wallNow) {
        HeaderValues.set(record.headers(), ShaperHeaders.QUEUED_MS,
                Long.toString(Math.max(0, wallNow - queued.enqueuedWallMs())));
        return record;
    }

    /**
     * Where a queued record's wait started: its timestamp, or its arrival if that is earlier, or if it has no
     * timestamp (0 or less), or with {@code shaper.shaping.max.delay.from=arrival}.
     */
    private long waitStart(long timestampMs, long enqueuedWallMs) {
        return settings.delayFromTimestamp() && timestampMs > 0 ? Math.min(timestampMs, enqueuedWallMs)
                : enqueuedWallMs;
    }

    /**
     * A queued record that waited past its key's {@code max.delay.ms} (and a tick), or is still queued at its
     * deadline, goes to the rejected topic.
     */
    private void rejectExpired(byte[] key, QueuedRecord queued, long storedBytes, long wallNow) {
        Record<byte[], byte[]> expired = waited(new Record<>(key, queued.value(), queued.timestamp(),
                queued.headers()), queued, wallNow);
        if (wallNow > queued.deadlineMs()) {
            reject(expired, new Refusal(RejectReason.DEADLINE_EXCEEDED, "still queued at its deadline "
                    + queued.deadlineMs() + " (" + ShaperHeaders.DEADLINE_MS + "), " + (wallNow - queued.deadlineMs())
                    + " ms after it, having waited " + (wallNow - queued.enqueuedWallMs()) + " ms"));
            counts.dequeuedToRejected(storedBytes);
            return;
        }
        // A retry is worth it once what the task has queued now has left, at its part of the total rate.
        long retryAfterMs = Math.max(settings.tickMs(),
                total.backlogNanos(clock.current(), queues.queuedUnits()) / 1_000_000L);
        reject(expired, new Refusal(RejectReason.DELAY_EXCEEDED, retryAfterMs, "expired while queued: waited "
                + (wallNow - waitStart(queued.timestamp(), queued.enqueuedWallMs())) + " ms"
                + (settings.delayFromTimestamp() ? " since its timestamp" : "") + ", more than this key's"
                + " max.delay.ms of "
                + rules.ruleFor(key).maxDelayMs() + " ms (the total rate's share shrank or the release stalled)"));
        counts.dequeuedToRejected(storedBytes);
        metrics.expired();
    }

    /** Where the records a release scan took out of the queues go. */
    private final class LeavingRecords implements TaskQueues.ReleasedRecords {
        private long wallNow;

        @Override
        public void released(byte[] key, QueuedRecord record, long storedBytes) {
            forwardReleased(key, record, storedBytes, wallNow);
        }

        @Override
        public void expired(byte[] key, QueuedRecord record, long storedBytes) {
            rejectExpired(key, record, storedBytes, wallNow);
        }
    }

    /**
     * The bounds of queued records, and the records cut at a fall of the rate, rejected once the cut is done: a
     * retry is a new arrival, behind all that stays queued.
     */
    private final class UnreachableRecords implements TaskQueues.BacklogBounds, TaskQueues.CutRecords {
        private record Cut(byte[] key, QueuedRecord queued, long storedBytes, long expectedWallMs,
                           long latestWallMs) {
        }

        private final List<Cut> cut = new ArrayList<>();

        @Override
        public long latestReleaseWallMs(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs) {
            ShapingRule rule = rules.ruleFor(key);
            if (rule.shadow()) {
                return Long.MAX_VALUE; // not enforced: it expires at its bound, as before its rule went into shadow
            }
            return Math.min(deadlineMs, waitStart(timestampMs, enqueuedWallMs) + rule.maxDelayMs());
        }

        @Override
        public ShapingRule rule(byte[] key) {
            return rules.ruleFor(key);
        }

        @Override
        public void cut(byte[] key, QueuedRecord queued, long storedBytes, long expectedWallMs, long latestWallMs) {
            cut.add(new Cut(key, queued, storedBytes, expectedWallMs, latestWallMs));
        }

        /** Rejects what the cut at {@code rate} took out, now that what stays is known. */
        void reject(long now, long wallNow, double rate) {
            for (Cut c : cut) {
                QueuedRecord queued = c.queued();
                Record<byte[], byte[]> record = waited(new Record<>(c.key(), queued.value(), queued.timestamp(),
                        queued.headers()), queued, wallNow);
                String why = "taken out of its queue when the capacity or this partition's part of it shrank: at " + String.format(Locale.ROOT, "%.1f", rate) + "/s, the rate this"
                        + " partition's backlog drains at now, it would have been released at about "
                        + c.expectedWallMs() + ", " + (c.expectedWallMs() - c.latestWallMs()) + " ms after ";
                if (c.latestWallMs() == queued.deadlineMs()) {
                    ShaperProcessor.this.reject(record, new Refusal(RejectReason.DEADLINE_EXCEEDED, why
                            + "its deadline " + queued.deadlineMs() + " (" + ShaperHeaders.DEADLINE_MS + ")"));
                } else {
                    ShapingRule rule = rules.ruleFor(c.key());
                    // As for an arrival refused: a retry is accepted once its wait behind what stays is in bound
                    long waitNanos = backlogNanos(now, wallNow, queues.queuedUnitsUpTo(rule.priority()));
                    long retryAfterMs = Math.max(settings.tickMs(),
                            LeakyBucket.nanosToRetryMs(waitNanos - rule.maxDelayMs() * 1_000_000L));
                    ShaperProcessor.this.reject(record, new Refusal(RejectReason.DELAY_EXCEEDED, retryAfterMs, why
                            + "its bound, this key's max.delay.ms of " + rule.maxDelayMs() + " ms"
                            + (settings.delayFromTimestamp() ? " since its timestamp" : " since its arrival")));
                }
                counts.dequeuedToRejected(c.storedBytes());
                metrics.cut();
            }
            cut.clear();
        }
    }

    /** The release side of the leaky buckets and the task's total cap, for one tick. */
    private final class BucketRelease implements TaskQueues.ReleasePolicy {
        private long now;
        private long step;
        private long wallNow;

        void startTick(long nowNanos, long stepNanos, long wallNowMs) {
            now = nowNanos;
            step = Math.min(stepNanos, burstNanos());
            wallNow = wallNowMs;
            ruleKey = null; // the rules may have changed between ticks; a key array may be reused
        }

        /** The rule of the key last asked about: the scan asks twice per record, with the same key array. */
        private byte[] ruleKey;
        private ShapingRule rule;

        private ShapingRule ruleFor(byte[] key) {
            if (key != ruleKey) {
                ruleKey = key;
                rule = rules.ruleFor(key);
            }
            return rule;
        }

        @Override
        public boolean expired(byte[] key, long timestampMs, long enqueuedWallMs, long deadlineMs) {
            return wallNow > deadlineMs
                    || wallNow - waitStart(timestampMs, enqueuedWallMs) > ruleFor(key).maxDelayMs() + settings.tickMs();
        }

        @Override
        public KeyState release(byte[] key, KeyEntry entry, long dueNanos, long cost) {
            ShapingRule rule = ruleFor(key);
            if (rule.shadow()) {
                // what waited from before the rule went into shadow
                return LeakyBucket.releaseUnpaced(entry.state(), cost);
            }
            ReleaseWindow window = entry.releases();
            if (window == null) {
                // Queued before a restart: what it released meanwhile is not known. (An entry whose window holds
                // anything stays in memory, see KeyCache, so a window is not lost between two ticks.)
                window = ReleaseWindow.assumingFullRate(rule.ratePerSecond(), wallNow);
                entry.releases(window);
            }
            if (!window.allows(wallNow, ReleasePace.maxInOneSecond(rule.ratePerSecond()))) {
                return null;
            }
            // A key may release a tick ahead of its schedule, so that a slot between two ticks leaves at the one
            // before it; the window keeps that, and any time made up, within rate + 1 a second.
            return LeakyBucket.release(entry.state(), rule, now, dueNanos, tickNanos,
                    stalls.routineLateNanos(), catchUpMaxNanos, cost);
        }

        @Override
        public void released(KeyEntry entry, long cost) {
            ReleaseWindow window = entry.releases();
            if (window != null) { // none for a key in shadow
                window.record(wallNow, cost);
            }
        }

        @Override
        public double availableUnits() {
            return Math.min(total.availableUnits(now, step), capacity.room(wallNow));
        }

        @Override
        public ShapingRule rule(byte[] key) {
            return ruleFor(key);
        }

        @Override
        public int servedPriority() {
            return capacity.servedPriority();
        }

        @Override
        public boolean takeTotal(long cost, int priority) {
            if (!capacity.mayRelease(wallNow)) {
                return false; // the ceiling's last second is full, whatever the rate's schedules allow
            }
            if (total.tryRelease(now, step, cost)) {
                capacity.used(cost, priority, wallNow);
                return true;
            }
            return capacity.takeSpare(cost, priority, wallNow);
        }
    }

    @Override
    public void close() {
        if (counts != null) {
            counts.close();
        }
        if (capacity != null) {
            capacity.close();
        }
        if (context != null) {
            backlogs.remove(context.taskId().partition());
        }
    }

    private void reject(Record<byte[], byte[]> record, Refusal refusal) {
        rejections.forward(context, record, refusal.reason(), refusal.retryAfterMs(), refusal.detail());
        metrics.rejected(refusal.reason());
    }
}
