package dev.shaper;

import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RulesFile;
import dev.shaper.internals.scheduling.DaemonThreadScheduler;
import dev.shaper.internals.wiring.TopologyWiring;
import java.util.List;
import org.apache.kafka.streams.Topology;

/**
 * The shaper's topology:
 *
 * <pre>
 * input topic --> [shaper-processor] --+--> output topic   (passed at once, or released by the punctuator)
 *                  checks              +--> rejected topic (invalid, rate limited, queue full, delay too long)
 *                  admission
 *                  leaky bucket <--> schedule store + key-state store (RocksDB, changelogged)
 * </pre>
 *
 * One processor takes each record through one pass: the input checks, admission (when some key has an admission
 * limit) and the key's leaky bucket. {@link ShaperApplication} runs it with Redis-shared admission, the metrics and
 * the limits read from the brokers.
 */
public final class ShaperTopology {

    /** Name of the source node. */
    public static final String SOURCE = TopologyWiring.SOURCE;
    /** Name of the processor: input checks, admission and the leaky bucket, one pass per record. */
    public static final String PROCESSOR = TopologyWiring.PROCESSOR;
    /** Name of the sink to the output topic. */
    public static final String SHAPED_SINK = TopologyWiring.SHAPED_SINK;
    /** Name of the sink to the rejected topic. */
    public static final String REJECTED_SINK = TopologyWiring.REJECTED_SINK;
    /** Store of the queued records, keyed by (due time, record key). */
    public static final String SCHEDULE_STORE = TopologyWiring.SCHEDULE_STORE;
    /** Store of the per-key leaky-bucket state and the task's virtual time. */
    public static final String KEY_STATE_STORE = TopologyWiring.KEY_STATE_STORE;

    private ShaperTopology() {
    }

    /**
     * The topology of {@code config} over an input topic of {@code inputPartitions} partitions, with the rules it names,
     * admission from in-process buckets only (no Redis), metrics kept in memory, and the size limits assumed from the
     * producer's settings and the brokers' defaults: to describe the topology or to drive it in a test. (The rules
     * topic is read by {@link ShaperApplication}, not here.)
     */
    public static Topology build(ShaperConfig config, int inputPartitions) {
        RuleBook rules = RulesFile.forConfig(config);
        AdmissionController admission = rules.hasAdmission() ? localAdmission(config) : null;
        return TopologyWiring.build(config, new TopologyWiring.Parts(rules, inputPartitions, admission,
                ShaperMetrics.inMemory(), TopicLimits.assumed(config.producerMaxRequestSize())));
    }

    /**
     * Admission from in-process buckets, as when no Redis is configured, for one instance. Never started: it admits,
     * but runs no background work (so idle buckets are not evicted), and holds no thread.
     */
    private static AdmissionController localAdmission(ShaperConfig config) {
        return new AdmissionController(null, config.admissionMode(), config.admissionSyncInterval(),
                config.redisPingInterval(), () -> 1, new DaemonThreadScheduler("shaper-admission"),
                System::nanoTime);
    }

    /** The changelog topics of the shaper's stores, as Kafka Streams names them for {@code applicationId}. */
    public static List<String> changelogTopics(String applicationId) {
        return TopologyWiring.changelogTopics(applicationId);
    }
}
