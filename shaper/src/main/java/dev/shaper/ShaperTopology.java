package dev.shaper;

import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.processor.AdmissionProcessor;
import dev.shaper.internals.processor.ShapingProcessor;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.limits.TopicLimits;
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
 * Builds the shaper's topology:
 *
 * <pre>
 * input topic --> [admission] --> leaky bucket --+--> output topic   (passed at once, or released by the punctuator)
 *                     |             |    ^        +--> rejected topic (queue full, delay too long, invalid input)
 *                     |             v    |
 *                     |   schedule store + key-state store (RocksDB, changelogged)
 *                     +--> rejected topic (rate limited)
 * </pre>
 *
 * The admission stage exists only when some key has an admission limit. In batched mode it keeps each key's
 * local bucket in the key's slot of the key-state store, which the leaky bucket looks up for the same record.
 */
public final class ShaperTopology {

    /** Name of the source node. */
    public static final String SOURCE = "shaper-input";
    /** Name of the admission processor (present only when some key has an admission limit). */
    public static final String ADMISSION = "shaper-admission";
    /** Name of the leaky-bucket processor. */
    public static final String LEAKY_BUCKET = "shaper-leaky-bucket";
    /** Name of the sink to the output topic. */
    public static final String SHAPED_SINK = "shaper-shaped-sink";
    /** Name of the sink to the rejected topic. */
    public static final String REJECTED_SINK = "shaper-rejected-sink";
    /** Store of the queued records, keyed by (due time, record key). */
    public static final String SCHEDULE_STORE = "shaper-schedule";
    /** Store of the per-key leaky-bucket state and the task's virtual time. */
    public static final String KEY_STATE_STORE = "shaper-key-state";

    /** Write-behind entries of the schedule store held in memory before they are written early. */
    private static final int SCHEDULE_BUFFER_LIMIT = 100_000;

    private ShaperTopology() {
    }

    /**
     * The span of dues one stored segment covers at most: one tick, so that the ticks release a segment in at most
     * two parts and a commit has at most one rest of it to rewrite. Measured with every record queued at 20/s per
     * key: 213 changelog bytes per record against 495 with segments bounded by their record count alone; a
     * quarter tick wrote as many bytes at more CPU per record (more, smaller entries), two and four ticks more
     * bytes.
     */
    static long segmentSpanNanos(long tickMs) {
        return tickMs * 1_000_000L; // shaper.shaping.tick.ms is at least 1
    }

    /** The topology without admission; {@code rules} must not set any admission limit. */
    public static Topology build(ShaperConfig config, RuleBook rules, int inputPartitions) {
        return build(config, rules, inputPartitions, null);
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

    /** The topology with metrics kept in memory only. */
    public static Topology build(ShaperConfig config, RuleBook rules, int inputPartitions,
                                 AdmissionController admission) {
        return build(config, rules, inputPartitions, admission, ShaperMetrics.inMemory());
    }

    /** The topology with the size limits assumed from the producer's settings and the brokers' defaults. */
    public static Topology build(ShaperConfig config, RuleBook rules, int inputPartitions,
                                 AdmissionController admission, ShaperMetrics metrics) {
        return build(config, rules, inputPartitions, admission, metrics,
                TopicLimits.assumed(config.producerMaxRequestSize()));
    }

    /**
     * @param rules           the per-key rules (each task gets its own copy)
     * @param inputPartitions partitions of the input topic; the total rate is split evenly across them
     * @param admission       the instance's admission, required when {@code rules.hasAdmission()}
     * @param metrics         where the processors report what they do
     * @param topicLimits      the largest records the topics take, read from the brokers
     */
    public static Topology build(ShaperConfig config, RuleBook rules, int inputPartitions,
                                 AdmissionController admission, ShaperMetrics metrics, TopicLimits topicLimits) {
        if (inputPartitions < 1) {
            throw new IllegalArgumentException("inputPartitions must be >= 1, got " + inputPartitions);
        }
        boolean admitting = rules.hasAdmission();
        if (admitting && admission == null) {
            throw new IllegalArgumentException("the rules set admission limits, but no admission controller was given");
        }
        ShapingProcessor.Settings settings = new ShapingProcessor.Settings(SCHEDULE_STORE, KEY_STATE_STORE,
                SHAPED_SINK, REJECTED_SINK, config.tickMs(), config.catchUpMaxMs(),
                config.totalRate() / inputPartitions, config.releasedHeader(), topicLimits);
        StateCacheBudget cache = new StateCacheBudget(config.stateCacheMaxKeys()); // one for all the tasks
        metrics.bindStateCache(cache);
        // Compaction keeps the latest entry per key; queued records are deleted by tombstones on release.
        // A changelog record carries the timestamp of a record the task processed, which the input topic may have
        // taken from further in the past or future than a topic's defaults allow: changelogs take any.
        Map<String, String> changelog = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Long.toString(changelogMaxMessageBytes(config)),
                TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.toString(Long.MAX_VALUE),
                TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.toString(Long.MAX_VALUE));

        Topology topology = new Topology();
        topology.addSource(SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(), config.inputTopic());
        String bucketParent = SOURCE;
        if (admitting) {
            AdmissionProcessor.Settings admissionSettings = new AdmissionProcessor.Settings(LEAKY_BUCKET,
                    REJECTED_SINK, config.admissionKeyHeader(), KEY_STATE_STORE, topicLimits);
            topology.addProcessor(ADMISSION, () -> new AdmissionProcessor(admissionSettings, rules.copy(), admission,
                    metrics),
                    SOURCE);
            bucketParent = ADMISSION;
        }
        topology.addProcessor(LEAKY_BUCKET, () -> new ShapingProcessor(settings, rules.copy(), metrics), bucketParent);
        topology.addStateStore(new WriteBehindStoreBuilder<>(SCHEDULE_STORE,
                inner -> new ScheduleStore(inner, SCHEDULE_BUFFER_LIMIT, segmentSpanNanos(config.tickMs()),
                        topicLimits.stored().bytes()))
                .withLoggingEnabled(changelog), LEAKY_BUCKET);
        topology.addStateStore(new WriteBehindStoreBuilder<>(KEY_STATE_STORE,
                inner -> new KeyStateStore(inner, cache)).withLoggingEnabled(changelog),
                admitting ? new String[] {ADMISSION, LEAKY_BUCKET} : new String[] {LEAKY_BUCKET});
        topology.addSink(SHAPED_SINK, config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                LEAKY_BUCKET);
        topology.addSink(REJECTED_SINK, config.rejectedTopic(), new ByteArraySerializer(),
                new ByteArraySerializer(), admitting ? new String[] {ADMISSION, LEAKY_BUCKET} : new String[] {LEAKY_BUCKET});
        return topology;
    }
}
