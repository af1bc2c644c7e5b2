package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.RestoreListener;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.processor.InputGate;
import dev.shaper.internals.processor.ShaperProcessor;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.store.KeyStateStore;
import dev.shaper.internals.store.ScheduleStore;
import dev.shaper.internals.store.StateCacheBudget;
import dev.shaper.internals.store.WriteBehindStoreBuilder;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.Topology;

/**
 * Wires the shaper's topology from its parts: one source, one {@link ShaperProcessor} that owns both stores, and the
 * sinks to the output and rejected topics. {@code dev.shaper.ShaperTopology} is the public face of it.
 */
public final class TopologyWiring {

    /** Name of the source node. */
    public static final String SOURCE = "shaper-input";
    /** Name of the processor: input checks, admission and the leaky bucket, one pass per record. */
    public static final String PROCESSOR = "shaper-processor";
    /** Name of the sink to the output topic. */
    public static final String SHAPED_SINK = "shaper-shaped-sink";
    /** Name of the sink to the rejected topic. */
    public static final String REJECTED_SINK = "shaper-rejected-sink";
    /** Name of the sink to the shadow topic, when {@code shaper.shadow.topic} is set. */
    public static final String SHADOW_SINK = "shaper-shadow-sink";
    /** Store of the queued records, keyed by (due time, record key). */
    public static final String SCHEDULE_STORE = "shaper-schedule";
    /** Store of the per-key leaky-bucket state and the task's virtual time. */
    public static final String KEY_STATE_STORE = "shaper-key-state";

    /** Write-behind entries of the schedule store held in memory before they are written early. */
    private static final int SCHEDULE_BUFFER_LIMIT = 100_000;

    /**
     * What the topology is built from, beside the settings.
     *
     * @param rules           the per-key rules (each task gets its own copy)
     * @param inputPartitions partitions of the input topic; the total rate is split evenly across them
     * @param admission       the instance's admission, required when {@code rules.hasAdmission()}, else ignored
     * @param metrics         where the processors report what they do
     * @param topicLimits     the largest records and the timestamps the topics take
     * @param capacity        the instance's pool of the total rate, or null for one made from the settings
     * @param backlogs        where the tasks publish their backlogs behind the total rate, for {@code /buckets}
     * @param restores        told at each task's start what its queues held (the closed loop's warm-up)
     * @param inputGate       whether new input may be taken (closed once the input topic was repartitioned)
     */
    public record Parts(RuleBook rules, int inputPartitions, AdmissionController admission, ShaperMetrics metrics,
                        TopicLimits topicLimits, CapacityPool capacity, TaskBacklogs backlogs,
                        RestoreListener restores, InputGate inputGate) {

        /** Parts whose pool of the total rate, if the settings ask for one, is made from the settings. */
        public Parts(RuleBook rules, int inputPartitions, AdmissionController admission, ShaperMetrics metrics,
                     TopicLimits topicLimits) {
            this(rules, inputPartitions, admission, metrics, topicLimits, null, new TaskBacklogs());
        }

        /** Parts without a closed loop to tell of restores, whose input is never closed. */
        public Parts(RuleBook rules, int inputPartitions, AdmissionController admission, ShaperMetrics metrics,
                     TopicLimits topicLimits, CapacityPool capacity, TaskBacklogs backlogs) {
            this(rules, inputPartitions, admission, metrics, topicLimits, capacity, backlogs, RestoreListener.NONE,
                    InputGate.OPEN);
        }

        public Parts {
            if (inputPartitions < 1) {
                throw new IllegalArgumentException("inputPartitions must be >= 1, got " + inputPartitions);
            }
            if (rules.hasAdmission() && admission == null) {
                throw new IllegalArgumentException(
                        "the rules set admission limits, but no admission controller was given");
            }
        }
    }

    private TopologyWiring() {
    }

    /**
     * The span of dues one stored segment covers at most: one tick, so that the ticks release a segment in at most two
     * parts and a commit has at most one rest of it to rewrite (the figures behind it are in the benchmark notes).
     */
    static long segmentSpanNanos(long tickMs) {
        return tickMs * 1_000_000L; // shaper.shaping.tick.ms is at least 1
    }

    /**
     * The {@code max.message.bytes} the shaper's changelog topics are created with: room for the largest record
     * its producer may send, so that the producer's limit, not a broker's lower default, is what binds.
     */
    public static long changelogMaxMessageBytes(ShaperConfig config) {
        return Math.max(config.producerMaxRequestSize(), TopicLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES);
    }

    /** The changelog topics of the shaper's stores, as Kafka Streams names them for {@code applicationId}. */
    public static List<String> changelogTopics(String applicationId) {
        return List.of(applicationId + "-" + SCHEDULE_STORE + "-changelog",
                applicationId + "-" + KEY_STATE_STORE + "-changelog");
    }

    /** The topology of {@code config} built from {@code parts}. */
    public static Topology build(ShaperConfig config, Parts parts) {
        AdmissionController admission = parts.rules().hasAdmission() ? parts.admission() : null;
        TopicLimits limits = parts.topicLimits();
        ShaperProcessor.Settings settings = new ShaperProcessor.Settings(SCHEDULE_STORE, KEY_STATE_STORE,
                SHAPED_SINK, REJECTED_SINK, config.tickMs(), config.catchUpMaxMs(),
                config.totalRate() / parts.inputPartitions(), config.releasedHeader(), limits,
                config.admissionKeyHeader(), config.maxTaskQueue(),
                config.shadowTopic() != null ? SHADOW_SINK : null, config.maxDelayFromTimestamp());
        StateCacheBudget cache = new StateCacheBudget(config.stateCacheMaxKeys()); // one for all the tasks
        CapacityPool capacity = parts.capacity() != null ? parts.capacity()
                : config.totalRate() > 0 && config.totalRatePooled()
                        ? new CapacityPool(config.totalRate(), parts.inputPartitions()) : null;
        if (capacity != null) {
            parts.metrics().bindCapacity(capacity);
        }
        parts.metrics().bindStateCache(cache);
        RuleBook rules = parts.rules();
        ShaperMetrics metrics = parts.metrics();

        Topology topology = new Topology();
        topology.addSource(SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(), config.inputTopic());
        TaskBacklogs backlogs = parts.backlogs();
        RestoreListener restores = parts.restores();
        InputGate inputGate = parts.inputGate();
        topology.addProcessor(PROCESSOR, () -> new ShaperProcessor(settings, rules.copy(), admission, capacity,
                backlogs, restores, inputGate, metrics), SOURCE);
        topology.addStateStore(new WriteBehindStoreBuilder<>(SCHEDULE_STORE,
                inner -> new ScheduleStore(inner, SCHEDULE_BUFFER_LIMIT, segmentSpanNanos(config.tickMs()),
                        limits.stored().bytes()))
                .withLoggingEnabled(changelogConfig(config)), PROCESSOR);
        topology.addStateStore(new WriteBehindStoreBuilder<>(KEY_STATE_STORE,
                inner -> new KeyStateStore(inner, cache)).withLoggingEnabled(changelogConfig(config)), PROCESSOR);
        topology.addSink(SHAPED_SINK, config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                PROCESSOR);
        topology.addSink(REJECTED_SINK, config.rejectedTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                PROCESSOR);
        if (config.shadowTopic() != null) {
            topology.addSink(SHADOW_SINK, config.shadowTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                    PROCESSOR);
        }
        return topology;
    }

    /**
     * The changelogs are compacted (queued records are deleted by tombstones on release), take the producer's largest
     * record, and take any timestamp: a changelog record carries the timestamp of a record the task processed, which
     * the input topic may have taken from further in the past or future than a topic's defaults allow.
     */
    private static Map<String, String> changelogConfig(ShaperConfig config) {
        return Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Long.toString(changelogMaxMessageBytes(config)),
                TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.toString(Long.MAX_VALUE),
                TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.toString(Long.MAX_VALUE));
    }
}
