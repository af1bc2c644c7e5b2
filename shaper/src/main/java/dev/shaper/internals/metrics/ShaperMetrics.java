package dev.shaper.internals.metrics;

import dev.shaper.RejectReason;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.capacity.CapacityCoordinator;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.adaptive.CapacityDecision;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.capacity.adaptive.FeedbackListener;
import dev.shaper.internals.redis.RedisFailure;
import dev.shaper.internals.rules.RulesTopicReader;
import dev.shaper.internals.store.StateCacheBudget;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Every metric the shaper publishes, defined here and nowhere else: names, descriptions, units and tags.
 * The processors, the admission and the HTTP server report through this class's methods.
 *
 * <p>No metric is tagged by record key: keys are unbounded, and a time series per key would overwhelm any
 * metrics backend. Per-key state is what {@code /buckets/{key}} answers.
 */
public final class ShaperMetrics implements AutoCloseable {

    /** Records forwarded to the output topic at once, without waiting. */
    public static final String PASSED = "shaper.records.passed";
    /** Records put in a key's queue. */
    public static final String QUEUED = "shaper.records.queued";
    /** Queued records released to the output topic by the punctuator. */
    public static final String RELEASED = "shaper.records.released";
    /**
     * Records sent to the rejected topic; tag {@code reason} is a {@link RejectReason}. A queued record that cannot be
     * sent when it is due (too old or too large for the output topic by then) was counted as queued before. Tag
     * {@code mode}: {@code enforce}; {@code shadow} counts the rejections rules in shadow would have made (the
     * records passed), from the first one on.
     */
    public static final String REJECTED = "shaper.records.rejected";
    /**
     * Records whose key's rule is in shadow: each left without the rule's limits (at once, or right behind what its
     * key still had queued from before), whatever the rule would have done.
     */
    public static final String SHADOWED = "shaper.records.shadowed";
    /** The tag of the meters that count what happened ({@code enforce}) or what rules in shadow would have done. */
    public static final String MODE_TAG = "mode";
    /** Counter: queued records rejected because they waited past their bound (counted in {@link #REJECTED} too). */
    public static final String EXPIRED = "shaper.records.expired";
    /**
     * Counter: queued records rejected when the rate their task's backlog drains at fell (a cut of the capacity, a
     * smaller part of it), since they could no longer leave by their bound (counted in {@link #REJECTED} too).
     */
    public static final String CUT = "shaper.records.cut";
    /** Records waiting in this instance's queues now. */
    public static final String QUEUE_RECORDS = "shaper.queue.records";
    /** Stored bytes of the records waiting in this instance's queues now. */
    public static final String QUEUE_BYTES = "shaper.queue.bytes";
    /**
     * How long released records waited in their queue; tag {@code mode}: {@code enforce}, and {@code shadow} for how
     * long records would have waited under rules in shadow.
     */
    public static final String QUEUE_DELAY = "shaper.queue.delay";
    /**
     * The upper bounds of {@link #QUEUE_DELAY}'s buckets: 10 ms to 5 min, at the waits a {@code max.delay.ms} is
     * usually set to.
     */
    public static final Duration[] QUEUE_DELAY_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(100),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5)};
    /** Records per second sent to the output topic (passed plus released). */
    public static final String RELEASE_RATE = "shaper.release.rate";
    /** The finest release tick of this instance's tasks now: it follows the fastest key waiting. */
    public static final String RELEASE_TICK = "shaper.release.tick";
    /** How late release ticks routinely come, the most of this instance's tasks: made up at once. */
    public static final String RELEASE_LATENESS = "shaper.release.lateness";
    /**
     * Seconds by which release ticks came later than the release makes up at once (their routine lateness, and the
     * step the total rate serves whole: twice the tick, at least 100 ms): stalls of the stream thread (a slow commit,
     * a GC pause, a starved CPU), summed over this instance's tasks.
     */
    public static final String RELEASE_STALLED = "shaper.release.stalled";
    /** 1 for the admission backend in use, 0 for the other; tags {@code backend} and {@code mode}. */
    public static final String ADMISSION_BACKEND = "shaper.admission.backend";
    /** Switches of the admission backend; tag {@code to} is {@code local} or {@code redis}. */
    public static final String ADMISSION_SWITCHES = "shaper.admission.switches";
    /**
     * Times a key's admission counter in Redis was found holding another type of value (WRONGTYPE: another
     * service's key under the shaper's prefix); the key is admitted locally meanwhile.
     */
    public static final String ADMISSION_UNUSABLE_KEYS = "shaper.admission.unusable.keys";
    /** Gauge: the live instances of the application as admission last counted them. */
    public static final String ADMISSION_LIVE_INSTANCES = "shaper.admission.live.instances";
    /**
     * 1 for why admission is on local buckets although Redis is configured, 0 otherwise; tag {@code kind} is
     * {@code unreachable}, {@code authentication}, {@code permission}, {@code tls} or {@code out_of_memory} (see
     * {@link RedisFailure}).
     */
    public static final String REDIS_FAILURE = "shaper.redis.failure";
    /** Latency of Redis calls; tag {@code command} is {@code take}, {@code charge} or {@code ping}. */
    public static final String REDIS_LATENCY = "shaper.redis.latency";
    /** The upper bounds of {@link #REDIS_LATENCY}'s buckets: 0.5 ms to 1 s, around the 50 ms default timeout. */
    public static final Duration[] REDIS_LATENCY_BUCKETS = {Duration.ofMillis(1).dividedBy(2), Duration.ofMillis(1),
        Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(1)};
    /** Key states this instance keeps in memory now, in all its tasks. */
    public static final String STATE_CACHE_KEYS = "shaper.state.cache.keys";
    /** The bound on {@link #STATE_CACHE_KEYS} ({@code shaper.state.cache.max.keys}). */
    public static final String STATE_CACHE_MAX_KEYS = "shaper.state.cache.max.keys";
    /** Units per second of the total rate this instance holds for its partitions (scope cluster). */
    public static final String CAPACITY_POOLED = "shaper.capacity.pooled";
    /** What the instance may have in use: its last second's releases or its pool, which its lease entry reserves. */
    public static final String CAPACITY_HELD = "shaper.capacity.held";
    /** Why the instance holds what it holds: a lease, a lease it could not renew, or its static shares. */
    public static final String CAPACITY_HOLDING = "shaper.capacity.holding";
    /** The units the instance's tasks released in the last second: never more than the pool plus one record. */
    public static final String CAPACITY_RELEASED_LAST_SECOND = "shaper.capacity.released.last.second";
    /** The most units the instance's tasks released in any one second since it started. */
    public static final String CAPACITY_RELEASED_MOST_SECOND = "shaper.capacity.released.most.second";
    /** Units per second of {@link #CAPACITY_POOLED} its partitions are given now, by their demand. */
    public static final String CAPACITY_GIVEN = "shaper.capacity.given";
    /** Units per second this instance's partitions ask for, together. */
    public static final String CAPACITY_DEMAND = "shaper.capacity.demand";
    /** Gauge: 1 for where the pooled rate comes from; tag {@code source} is {@code redis} (a lease) or {@code local}. */
    public static final String CAPACITY_SOURCE = "shaper.capacity.source";
    /** Switches of the capacity's source; tag {@code to} is {@code local} or {@code redis}. */
    public static final String CAPACITY_SWITCHES = "shaper.capacity.switches";
    /** Lease renewals, one Redis round trip each; tag {@code outcome} is {@code ok} or {@code failed}. */
    public static final String CAPACITY_RENEWALS = "shaper.capacity.renewals";
    /** Gauge: the live instances sharing the capacity, as the last lease counted them. */
    public static final String CAPACITY_INSTANCES = "shaper.capacity.instances";
    /** Gauge: the application's capacity this instance applies now, units/s, as the closed loop decided it. */
    public static final String CAPACITY_RATE = "shaper.capacity.rate";
    /** Gauge: the lowest the closed loop lets the capacity fall, units/s ({@code shaper.capacity.min.rate}). */
    public static final String CAPACITY_MIN_RATE = "shaper.capacity.min.rate";
    /** Gauge: the highest the closed loop lets the capacity rise, units/s ({@code shaper.shaping.total.rate}). */
    public static final String CAPACITY_MAX_RATE = "shaper.capacity.max.rate";
    /**
     * Gauge: 1 for why the capacity is where it is, 0 for the other reasons; tag {@code reason} is {@code latency},
     * {@code errors}, {@code healthy}, {@code no_feedback} or {@code warming_up}.
     */
    public static final String CAPACITY_DECISION = "shaper.capacity.decision";
    /** Gauge: 1 for where the decision in force comes from; tag {@code source} is {@code redis} or {@code local}. */
    public static final String CAPACITY_DECISION_SOURCE = "shaper.capacity.decision.source";
    /** Gauge: the writers' p99 write latency at this instance's last decision, seconds (NaN: none seen). */
    public static final String CAPACITY_FEEDBACK_LATENCY_P99 = "shaper.capacity.feedback.latency.p99";
    /** Gauge: the writers' error ratio at this instance's last decision (NaN: none seen). */
    public static final String CAPACITY_FEEDBACK_ERROR_RATIO = "shaper.capacity.feedback.error.ratio";
    /** Gauge: 1 while a writer's report ended within {@code shaper.capacity.feedback.timeout.ms}, else 0. */
    public static final String CAPACITY_FEEDBACK_PRESENT = "shaper.capacity.feedback.present";
    /** Counter: feedback records that are not reports (no key, not the JSON of a report), ignored. */
    public static final String CAPACITY_FEEDBACK_MALFORMED = "shaper.capacity.feedback.malformed";
    /** Counter: records of the rules topic; tag {@code outcome} is {@code applied} or {@code refused} (invalid). */
    public static final String RULES_TOPIC_RECORDS = "shaper.rules.topic.records";
    /** Gauge: the rules of the rules topic in force now. */
    public static final String RULES_TOPIC_RULES = "shaper.rules.topic.rules";

    private final MeterRegistry registry;
    /** The live tasks' counts; guarded by the set itself, as is {@link #retiredCounts}. */
    private final Set<TaskCounts> taskCounts = new HashSet<>();
    /** What the tasks' counts report to: these meters. */
    private final TaskCounts.Owner taskOwner = new TaskCounts.Owner() {
        @Override
        public void recordQueueDelay(long waitedMs) {
            ShaperMetrics.this.recordQueueDelay(waitedMs);
        }

        @Override
        public void addOutput(long secondStartMs, long records) {
            ShaperMetrics.this.addOutput(secondStartMs, records);
        }

        @Override
        public void retire(TaskCounts counts) {
            ShaperMetrics.this.retire(counts);
        }
    };
    /** What the tasks that closed counted. */
    private final TaskCounts retiredCounts = new TaskCounts(taskOwner, 0, 0);
    private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);
    private final Counter expired;
    private final Counter cut;
    private final Timer queueDelay;
    /** The mode="shadow" meters, registered at the first decision of a rule in shadow; null before. */
    private volatile ShadowMeters shadow;
    private final SlidingRate releaseRate;
    private final Map<String, Timer> redisLatency = new ConcurrentHashMap<>();
    private KafkaStreamsMetrics streamsMetrics;
    /** The binders of {@link #bindJvmAndProcess()} that listen to the JVM's collections until closed, or null. */
    private JvmGcMetrics gcMetrics;
    private JvmHeapPressureMetrics heapPressure;
    /** The instance's key-state cache, once the topology is built; the gauges read 0 before. */
    private volatile StateCacheBudget stateCache;
    private volatile CapacityPool capacity;

    /**
     * @param registry    where the meters live (a Prometheus registry in the application)
     * @param wallClockMs the clock the release-rate gauge reads; the stream threads report with their own
     *                    wall time, so in tests both can be the driver's mock time
     */
    public ShaperMetrics(MeterRegistry registry, LongSupplier wallClockMs) {
        this.registry = registry;
        // Function counters over the tasks' own counts: see TaskCounts for why the hot paths do not share a meter.
        FunctionCounter.builder(PASSED, this, m -> m.total(TaskCounts::passedCount))
                .description("Records forwarded to the output topic at once, without waiting").register(registry);
        FunctionCounter.builder(QUEUED, this, m -> m.total(TaskCounts::queuedCount))
                .description("Records put in their key's queue to wait for their release").register(registry);
        FunctionCounter.builder(RELEASED, this, m -> m.total(TaskCounts::releasedCount))
                .description("Queued records released to the output topic by the punctuator").register(registry);
        for (RejectReason reason : RejectReason.values()) {
            // Registered up front, so a dashboard shows every reason at 0 instead of "no data".
            rejected.put(reason, rejectedCounter(reason, "enforce"));
        }
        this.expired = Counter.builder(EXPIRED)
                .description("Queued records rejected as DELAY_EXCEEDED because they waited past max.delay.ms and a"
                        + " tick (the total rate's share shrank, or the release stalled); also in "
                        + REJECTED)
                .register(registry);
        this.cut = Counter.builder(CUT)
                .description("Queued records rejected as DELAY_EXCEEDED or DEADLINE_EXCEEDED when the rate their"
                        + " backlog drains at fell (a cut of the capacity, a smaller part of it), since they could no"
                        + " longer leave in time; also in " + REJECTED)
                .register(registry);
        this.queueDelay = queueDelayTimer("enforce");
        this.releaseRate = new SlidingRate(wallClockMs);
        Gauge.builder(RELEASE_RATE, releaseRate, SlidingRate::perSecond)
                .description("Records per second sent to the output topic (passed at once plus released), averaged"
                        + " over the last " + SlidingRate.WINDOW_SECONDS + " complete seconds")
                .register(registry);
        Gauge.builder(RELEASE_TICK, this, m -> m.liveExtreme(TaskCounts::releaseTickMs, false) / 1000.0)
                .baseUnit("seconds").description("The finest release tick of this instance's tasks: half the interval"
                        + " between records of the fastest key waiting, within 1 ms and shaper.shaping.tick.ms")
                .register(registry);
        Gauge.builder(RELEASE_LATENESS, this, m -> m.liveExtreme(TaskCounts::routineLateMs, true) / 1000.0)
                .baseUnit("seconds").description("How late this instance's release ticks routinely come (the median"
                        + " over 2 s of each 100 ms's latest), the most of its tasks: keys make this up at once, so"
                        + " it adds to their densest second; a longer stall is made up at 2 % above the rate")
                .register(registry);
        FunctionCounter.builder(RELEASE_STALLED, this, m -> m.total(TaskCounts::stalledNanos) / 1e9)
                .baseUnit("seconds").description("How much later this instance's release ticks came than the release"
                        + " makes up at once (their routine lateness; with a total rate, twice the tick and at least"
                        + " 100 ms), summed over its tasks: stalls of the stream thread (a slow commit, a GC pause, a"
                        + " starved CPU). Divided by the tasks and the time, the share of a capacity in full use that"
                        + " stalls cost: a ceiling lets it be made up only where a later second has room")
                .register(registry);
        // Over the live tasks only: a task that closed took its queues with it.
        Gauge.builder(QUEUE_RECORDS, this, m -> m.liveTotal(TaskCounts::queuedRecords))
                .description("Records waiting in the queues of this instance's tasks")
                .register(registry);
        Gauge.builder(QUEUE_BYTES, this, m -> m.liveTotal(TaskCounts::queuedBytes))
                .baseUnit(BaseUnits.BYTES).description("Stored size of the records waiting in this instance's queues")
                .register(registry);
        // Near the bound is where memory runs short: both are published, so an alert can compare them.
        Gauge.builder(STATE_CACHE_KEYS, this, m -> m.stateCache == null ? 0 : m.stateCache.cachedKeys())
                .description("Key states this instance keeps in memory in front of RocksDB, in all its tasks")
                .register(registry);
        Gauge.builder(CAPACITY_POOLED, this, m -> m.capacity == null ? 0 : m.capacity.pooled())
                .description("Units/s of shaper.shaping.total.rate this instance holds for the partitions it runs"
                        + " (0 without a pooled total rate)")
                .register(registry);
        Gauge.builder(CAPACITY_GIVEN, this, m -> m.capacity == null ? 0 : m.capacity.given())
                .description("Units/s of the pooled total rate its partitions are given now, by their demand")
                .register(registry);
        Gauge.builder(CAPACITY_DEMAND, this, m -> m.capacity == null ? 0 : m.capacity.demand())
                .description("Units/s the partitions this instance runs ask for, together (0 without a pooled total"
                        + " rate)")
                .register(registry);
        Gauge.builder(CAPACITY_HELD, this, m -> m.capacity == null ? 0 : m.capacity.held())
                .description("Units/s this instance may have in use: what it released in the last second, or its part of"
                        + " the total rate if more, which its lease entry reserves (0 without a pooled total rate)")
                .register(registry);
        for (CapacityPool.Holding holding : CapacityPool.Holding.values()) {
            Gauge.builder(CAPACITY_HOLDING, this, m -> m.capacity != null && m.capacity.holding() == holding ? 1 : 0)
                    .tag("holding", holding.tag())
                    .description("1 for what this instance holds of the total rate (lease: a lease of the cluster-wide"
                            + " capacity; hold: a lease it could not renew, at most the last grant; static: the static"
                            + " shares of its partitions), 0 otherwise")
                    .register(registry);
        }
        Gauge.builder(CAPACITY_RELEASED_LAST_SECOND, this, m -> m.capacity == null ? 0
                        : m.capacity.releasedInLastSecond(System.currentTimeMillis()))
                .description("Units this instance's partitions released in the last second, all together: never more"
                        + " than what it holds plus one record")
                .register(registry);
        Gauge.builder(CAPACITY_RELEASED_MOST_SECOND, this, m -> m.capacity == null ? 0 : m.capacity.mostInOneSecond())
                .description("The most units this instance's partitions released in any one second since it started")
                .register(registry);
        Gauge.builder(STATE_CACHE_MAX_KEYS, this, m -> m.stateCache == null ? 0 : m.stateCache.maxKeys())
                .description("The bound on " + STATE_CACHE_KEYS + ", exceeded at most by the states changed since"
                        + " the last commit (shaper.state.cache.max.keys)")
                .register(registry);
    }

    private Counter rejectedCounter(RejectReason reason, String mode) {
        return Counter.builder(REJECTED).tag("reason", reason.name()).tag(MODE_TAG, mode)
                .description("Records sent to the rejected topic, by the reason in their shaper.reason header;"
                        + " mode=shadow: the rejections rules in shadow would have made")
                .register(registry);
    }

    private Timer queueDelayTimer(String mode) {
        return Timer.builder(QUEUE_DELAY).tag(MODE_TAG, mode)
                .description("How long released records waited in their key's queue (records passed at once are"
                        + " not included: they waited 0); mode=shadow: how long records would have waited under"
                        + " rules in shadow")
                // Buckets, not client-side percentiles: Prometheus computes any percentile from them, across
                // instances too (histogram_quantile), and recording stays cheap. A few, at the waits an operator
                // sets bounds at, instead of Micrometer's 70-odd.
                .serviceLevelObjectives(QUEUE_DELAY_BUCKETS)
                .register(registry);
    }

    /** The meters of rules in shadow: registered once one decides, so that an application without any has none. */
    private final class ShadowMeters {
        private final Counter shadowed = Counter.builder(SHADOWED).tag(MODE_TAG, "shadow")
                .description("Records whose key's rule is in shadow; each left without the rule's limits")
                .register(registry);
        private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);
        private final Timer delay = queueDelayTimer("shadow");

        ShadowMeters() {
            for (RejectReason reason : RejectReason.values()) {
                rejected.put(reason, rejectedCounter(reason, "shadow"));
            }
        }
    }

    private ShadowMeters shadowMeters() {
        ShadowMeters meters = shadow;
        if (meters == null) {
            synchronized (this) {
                meters = shadow;
                if (meters == null) {
                    meters = new ShadowMeters();
                    shadow = meters;
                }
            }
        }
        return meters;
    }

    /** A record's key has its rule in shadow (see {@link #SHADOWED}). */
    public void shadowed() {
        shadowMeters().shadowed.increment();
    }

    /** A rule in shadow would have rejected a record for {@code reason}. */
    public void rejectedInShadow(RejectReason reason) {
        shadowMeters().rejected.get(reason).increment();
    }

    /** A rule in shadow would have queued a record for {@code waitMs}. */
    public void delayedInShadow(long waitMs) {
        shadowMeters().delay.record(waitMs, TimeUnit.MILLISECONDS);
    }

    /** Metrics kept in memory only: for tests, tools and a shaper with its HTTP server off. */
    public static ShaperMetrics inMemory() {
        return new ShaperMetrics(new SimpleMeterRegistry(), System::currentTimeMillis);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /**
     * The counts of a task that just started, its queues holding the {@code records} and {@code bytes} it
     * restored; the task closes them when it closes.
     */
    public TaskCounts registerTaskCounts(long records, long bytes) {
        TaskCounts counts = new TaskCounts(taskOwner, records, bytes);
        synchronized (taskCounts) {
            taskCounts.add(counts);
        }
        return counts;
    }

    /** Keeps a closing task's counts in the totals, so that the counters never go down. */
    private void retire(TaskCounts counts) {
        synchronized (taskCounts) {
            if (taskCounts.remove(counts)) {
                retiredCounts.absorb(counts);
            }
        }
    }

    /** A counter's total: the live tasks' counts and the closed ones'. */
    private double total(ToLongFunction<TaskCounts> count) {
        synchronized (taskCounts) {
            return count.applyAsLong(retiredCounts) + liveTotal(count);
        }
    }

    private long liveTotal(ToLongFunction<TaskCounts> count) {
        synchronized (taskCounts) {
            long sum = 0;
            for (TaskCounts counts : taskCounts) {
                sum += count.applyAsLong(counts);
            }
            return sum;
        }
    }

    /** The largest ({@code max}) or smallest value of the live tasks; 0 without a task. */
    private long liveExtreme(ToLongFunction<TaskCounts> value, boolean max) {
        synchronized (taskCounts) {
            long extreme = max ? Long.MIN_VALUE : Long.MAX_VALUE;
            for (TaskCounts counts : taskCounts) {
                long v = value.applyAsLong(counts);
                extreme = max ? Math.max(extreme, v) : Math.min(extreme, v);
            }
            return taskCounts.isEmpty() ? 0 : extreme;
        }
    }

    private void recordQueueDelay(long waitedMs) {
        queueDelay.record(waitedMs, TimeUnit.MILLISECONDS);
    }

    /** Counts {@code records} sent to the output in the wall-clock second that starts at {@code secondStartMs}. */
    private void addOutput(long secondStartMs, long records) {
        releaseRate.add(secondStartMs, records);
    }

    /** A queued record expired (see {@link #EXPIRED}); {@link #rejected} counts it as well. */
    public void expired() {
        expired.increment();
    }

    /** A queued record was cut, too late for its bound (see {@link #CUT}); {@link #rejected} counts it too. */
    public void cut() {
        cut.increment();
    }

    public void rejected(RejectReason reason) {
        rejected.get(reason).increment();
    }

    /** Times one Redis call. */
    public void redisCall(String command, long nanos) {
        redisLatency.computeIfAbsent(command, c -> Timer.builder(REDIS_LATENCY).tag("command", c)
                .description("Latency of the admission's Redis calls, successful or not")
                .serviceLevelObjectives(REDIS_LATENCY_BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Publishes how many key states the instance keeps in memory, and its bound. */
    public void bindStateCache(StateCacheBudget cache) {
        stateCache = cache;
    }

    /** Publishes how much of the total rate the instance holds and gives its partitions. */
    public void bindCapacity(CapacityPool pool) {
        capacity = pool;
    }

    /** Publishes where the instance's part of the total rate comes from, its renewals and its switches. */
    public void bindCapacityCoordinator(CapacityCoordinator coordinator) {
        for (CapacityCoordinator.Source source : CapacityCoordinator.Source.values()) {
            Gauge.builder(CAPACITY_SOURCE, coordinator, c -> c.source() == source ? 1 : 0)
                    .tag("source", source.tag())
                    .description("1 for where this instance's part of the total rate comes from (redis: a lease of"
                            + " the cluster-wide capacity; local: the static shares of its partitions), 0 otherwise")
                    .register(registry);
            FunctionCounter.builder(CAPACITY_SWITCHES, coordinator, c -> c.switchesTo(source))
                    .tag("to", source.tag()).description("Switches of the capacity's source")
                    .register(registry);
        }
        FunctionCounter.builder(CAPACITY_RENEWALS, coordinator, c -> c.renewals() - c.failedRenewals())
                .tag("outcome", "ok").description("Lease renewals, one Redis call each").register(registry);
        FunctionCounter.builder(CAPACITY_RENEWALS, coordinator, CapacityCoordinator::failedRenewals)
                .tag("outcome", "failed").description("Lease renewals, one Redis call each").register(registry);
        Gauge.builder(CAPACITY_INSTANCES, coordinator, c -> c.lastLease() == null ? 0 : c.lastLease().instances())
                .description("Live instances sharing the capacity, as the last lease counted them")
                .register(registry);
    }

    /**
     * Publishes the closed loop: the capacity it applies, its bounds, why, where the decision came from, and what the
     * writers' feedback showed.
     *
     * @param feedback the loop's feedback listener, which counts the malformed records
     */
    public void bindClosedLoop(ClosedLoop loop, FeedbackListener feedback) {
        loopGauge(CAPACITY_RATE, loop, ClosedLoop.Status::capacity, "The application's capacity this instance"
                + " applies now, units/s, as the closed loop decided it from the database writers' feedback");
        loopGauge(CAPACITY_MIN_RATE, loop, ClosedLoop.Status::min, "The lowest the closed loop lets the capacity fall,"
                + " units/s (shaper.capacity.min.rate)");
        loopGauge(CAPACITY_MAX_RATE, loop, ClosedLoop.Status::max, "The highest the closed loop lets the capacity"
                + " rise, units/s (shaper.shaping.total.rate)");
        for (CapacityDecision.Reason reason : CapacityDecision.Reason.values()) {
            // Every reason from the start, at 0: a panel or an alert on one needs its series.
            Gauge.builder(CAPACITY_DECISION, loop, l -> l.status().reason() == reason ? 1 : 0)
                    .tag("reason", reason.tag())
                    .description("1 for why the capacity is where it is (latency or errors: cut; healthy: raised or"
                            + " at the maximum; no_feedback: held, no report within the timeout; warming_up: held"
                            + " below by the warm-up after a restore), 0 otherwise")
                    .register(registry);
        }
        for (ClosedLoop.Source source : ClosedLoop.Source.values()) {
            Gauge.builder(CAPACITY_DECISION_SOURCE, loop, l -> l.source() == source ? 1 : 0)
                    .tag("source", source.tag())
                    .description("1 for where the capacity's decision comes from (redis: the one decision of all"
                            + " instances; local: this instance's own, without Redis or while it is down), 0 otherwise")
                    .register(registry);
        }
        Gauge.builder(CAPACITY_FEEDBACK_LATENCY_P99, loop, l -> l.status().latencyP99Ms() / 1000.0)
                .baseUnit("seconds")
                .description("The database writers' p99 write latency (the largest writer's) at this instance's last"
                        + " decision; NaN when it saw none")
                .register(registry);
        loopGauge(CAPACITY_FEEDBACK_ERROR_RATIO, loop, ClosedLoop.Status::errorRatio, "The share of the database"
                + " writers' attempted units that failed, at this instance's last decision; NaN when it saw none");
        Gauge.builder(CAPACITY_FEEDBACK_PRESENT, loop, l -> l.status().feedbackPresent() ? 1 : 0)
                .description("1 while a writer's report ended within shaper.capacity.feedback.timeout.ms, 0 when they"
                        + " fell silent (the capacity then holds)")
                .register(registry);
        // The listener itself, held by the application: a meter holds its object weakly, a method reference would go.
        FunctionCounter.builder(CAPACITY_FEEDBACK_MALFORMED, feedback, FeedbackListener::malformedRecords)
                .description("Feedback records that are not reports (no key, or a value that is not a report's"
                        + " JSON), ignored; each writer's first is logged")
                .register(registry);
    }

    private void loopGauge(String name, ClosedLoop loop, ToDoubleFunction<ClosedLoop.Status> value,
                           String description) {
        Gauge.builder(name, loop, l -> value.applyAsDouble(l.status())).description(description).register(registry);
    }

    /** Publishes what the rules topic's reader applied and refused. */
    public void bindRulesTopic(RulesTopicReader reader) {
        FunctionCounter.builder(RULES_TOPIC_RECORDS, reader, RulesTopicReader::appliedRecords)
                .tag("outcome", "applied").description("Records of the rules topic that set or deleted a rule")
                .register(registry);
        FunctionCounter.builder(RULES_TOPIC_RECORDS, reader, RulesTopicReader::refusedRecords)
                .tag("outcome", "refused").description("Records of the rules topic refused whole as invalid (each"
                        + " logged once with its rule id); the rule they name stays as it was")
                .register(registry);
        Gauge.builder(RULES_TOPIC_RULES, reader, RulesTopicReader::topicRules)
                .description("Rules of the rules topic in force now, after the rules file's")
                .register(registry);
    }

    /** Publishes which backend the admission uses and how often it switched. */
    public void bindAdmission(AdmissionController admission) {
        String mode = admission.mode().name().toLowerCase(Locale.ROOT);
        for (AdmissionController.Backend backend : AdmissionController.Backend.values()) {
            Gauge.builder(ADMISSION_BACKEND, admission, a -> a.backend() == backend ? 1 : 0)
                    .tag("backend", backend.name().toLowerCase(Locale.ROOT)).tag("mode", mode)
                    .description("1 for the admission backend in use (redis: shared counters; local: in-process"
                            + " fallback at rate / live instances), 0 for the other")
                    .register(registry);
        }
        FunctionCounter.builder(ADMISSION_SWITCHES, admission, AdmissionController::switchesToLocal)
                .tag("to", "local").description("Switches of the admission backend to local buckets (Redis failed)")
                .register(registry);
        FunctionCounter.builder(ADMISSION_SWITCHES, admission, AdmissionController::switchesToRedis)
                .tag("to", "redis").description("Switches of the admission backend back to Redis")
                .register(registry);
        FunctionCounter.builder(ADMISSION_UNUSABLE_KEYS, admission, AdmissionController::unusableKeys)
                .description("Times a key's admission counter in Redis held another type of value (WRONGTYPE);"
                        + " the key is admitted locally meanwhile")
                .register(registry);
        Gauge.builder(ADMISSION_LIVE_INSTANCES, admission, AdmissionController::liveInstances)
                .description("Live instances of the application as last counted; the local fallback admits at each"
                        + " rate divided by this")
                .register(registry);
        for (RedisFailure.Kind kind : RedisFailure.Kind.values()) {
            // Every kind from the start, at 0: an alert on authentication or tls needs a series to watch.
            Gauge.builder(REDIS_FAILURE, admission, a -> {
                        RedisFailure failure = a.redisFailure();
                        return failure != null && failure.kind() == kind ? 1 : 0;
                    })
                    .tag("kind", kind.tag())
                    .description("1 for why admission is on local buckets although Redis is configured: unreachable"
                            + " (no answer), authentication (credentials refused), permission (an ACL refuses a"
                            + " command) or tls (handshake failed, e.g. an untrusted certificate); 0 otherwise")
                    .register(registry);
        }
        admission.observeRedisCalls(this::redisCall);
    }

    /**
     * Publishes the JVM's and the process's own meters, under Micrometer's standard names: heap and non-heap pools
     * and buffers ({@code jvm_memory_used_bytes}), collections and their pauses ({@code jvm_gc_pause_seconds}, or
     * {@code jvm_gc_concurrent_phase_time_seconds} for a concurrent collector's cycles), the share of time spent
     * collecting ({@code jvm_gc_overhead}), threads, classes, the JVM's version ({@code jvm_info}), CPU
     * ({@code process_cpu_usage}, {@code system_cpu_count}), uptime ({@code process_uptime_seconds}) and file
     * descriptors ({@code process_files_open_files} against {@code process_files_max_files}). Near the memory bound
     * is where an instance must stay observable; {@link #close()} stops the binders that listen to the JVM.
     */
    public synchronized void bindJvmAndProcess() {
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics = new JvmGcMetrics();
        gcMetrics.bindTo(registry);
        heapPressure = new JvmHeapPressureMetrics();
        heapPressure.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    /** Publishes Kafka Streams' own metrics (consumer, producer, threads, tasks, stores). */
    public synchronized void bindStreams(KafkaStreams streams) {
        streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
    }

    @Override
    public synchronized void close() {
        if (streamsMetrics != null) {
            streamsMetrics.close();
        }
        if (gcMetrics != null) {
            gcMetrics.close();
            heapPressure.close();
            gcMetrics = null;
            heapPressure = null;
        }
    }
}
