package dev.shaper.bench;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.processor.ReleaseStamp;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RulesFile;
import dev.shaper.internals.wiring.TopologyWiring;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * The applications under test. All get their Kafka Streams settings from the same
 * {@link ShaperConfig#streamsProperties()}, so they differ only in their topology.
 */
enum BenchApp {

    /** The baseline: source to sink, byte[] in and out, no state, no processing. */
    PASS_THROUGH("pass-through", false, null) {
        @Override
        Topology topology(ShaperConfig config, int partitions, AdmissionController admission,
                          CapacityPool capacity) {
            Topology topology = new Topology();
            topology.addSource("source", new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    config.inputTopic());
            topology.addSink("sink", config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                    "source");
            return topology;
        }
    },

    /**
     * The baseline plus the header every shaped record carries by default ({@code shaper.queued.ms}, and
     * {@code shaper.released.ms} from the shaper's own {@link ReleaseStamp} when the settings turn it on):
     * separates what those headers cost Kafka's producer and broker from what the shaper's own work costs.
     */
    PASS_THROUGH_WITH_HEADER("pass-through+header", false, null) {
        @Override
        Topology topology(ShaperConfig config, int partitions, AdmissionController admission,
                          CapacityPool capacity) {
            byte[] zero = "0".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            Topology topology = new Topology();
            topology.addSource("source", new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    config.inputTopic());
            topology.addProcessor("header", () -> new org.apache.kafka.streams.processor.api.ContextualProcessor<
                    byte[], byte[], byte[], byte[]>() {
                private final ReleaseStamp stamp = new ReleaseStamp();
                private final boolean released = config.releasedHeader();

                @Override
                public void process(org.apache.kafka.streams.processor.api.Record<byte[], byte[]> record) {
                    record.headers().add(dev.shaper.ShaperHeaders.QUEUED_MS, zero);
                    if (released) {
                        record.headers().add(dev.shaper.ShaperHeaders.RELEASED_MS,
                                stamp.at(context().currentSystemTimeMs()));
                    }
                    context().forward(record);
                }
            }, "source");
            topology.addSink("sink", config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                    "header");
            return topology;
        }
    },

    /**
     * The naive queue the performance targets were set against: every record is put into a logged RocksDB store
     * (Kafka's own, record cache off) and, at the next wall-clock punctuation (every {@code shaper.shaping.tick.ms},
     * as the shaper's, 100 ms by default), forwarded with the queue header and deleted: a put, a delete and two
     * changelog records per record, and no rate at all. A yardstick for the shaper's queued runs, not a shaper.
     */
    NAIVE_QUEUE("naive-queue", false, null) {
        @Override
        Topology topology(ShaperConfig config, int partitions, AdmissionController admission,
                          CapacityPool capacity) {
            Topology topology = new Topology();
            topology.addSource("source", new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    config.inputTopic());
            long tickMs = config.tickMs();
            topology.addProcessor("naive-queue", () -> new NaiveQueueProcessor(tickMs), "source");
            topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(NaiveQueueProcessor.STORE),
                    Serdes.Long(), Serdes.ByteArray()).withCachingDisabled(), "naive-queue");
            topology.addSink("sink", config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                    "naive-queue");
            return topology;
        }

        @Override
        boolean hasStore() {
            return true;
        }
    },

    /** The shaper's own topology, with the default rule of the scenario and no per-key rules. */
    SHAPER("shaper", true, null),

    /** The shaper with admission in batched mode on Redis, at a rate that admits everything. */
    SHAPER_BATCHED("shaper+batched", true, AdmissionMode.BATCHED),

    /** The shaper with admission in strict mode on Redis (a Redis call per record), admitting everything. */
    SHAPER_STRICT("shaper+strict", true, AdmissionMode.STRICT),

    /**
     * The shaper with a total rate far above the load, shared by demand among the instance's partitions (scope
     * cluster): what the pool's bookkeeping costs when it never binds.
     */
    SHAPER_POOLED_TOTAL("shaper+pooled-total", true, null) {
        @Override
        void addSettings(Map<String, String> settings) {
            settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "1e9");
            settings.put(ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_CLUSTER);
        }
    },

    /**
     * A pooled total rate below what the shaper can do (200,000/s, scope cluster): every release goes through the
     * instance's window of releases and the limiter holds records back, what the ceiling costs when it binds.
     */
    SHAPER_BINDING_TOTAL("shaper+binding-total", true, null) {
        @Override
        void addSettings(Map<String, String> settings) {
            settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "200000");
            settings.put(ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_CLUSTER);
        }
    },

    /**
     * The pooled total rate leased through Redis (scope cluster with {@code shaper.redis.uri}): what the leases'
     * renewals cost when the capacity never binds.
     */
    SHAPER_LEASED_TOTAL("shaper+leased-total", true, null) {
        @Override
        void addSettings(Map<String, String> settings) {
            SHAPER_POOLED_TOTAL.addSettings(settings);
        }

        @Override
        boolean usesRedis() {
            return true;
        }
    },

    /**
     * The whole shaper in shadow ({@code shaper.mode=shadow}): every record passes at once, and each that the
     * scenario's rule would have held back is reported on a shadow topic. In the queued scenario that is every record
     * but the first of each run (a report written per record); in the unqueued one, none.
     */
    SHAPER_SHADOW("shaper+shadow", true, null) {
        @Override
        void addSettings(Map<String, String> settings) {
            settings.put(ShaperConfig.MODE_CONFIG, "shadow");
        }

        @Override
        String shadowTopic(String runId) {
            return runId + "-shadow";
        }
    },

    /** The same total rate, split into a fixed part per partition (scope partition): the yardstick of the pool. */
    SHAPER_FIXED_TOTAL("shaper+fixed-total", true, null) {
        @Override
        void addSettings(Map<String, String> settings) {
            settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "1e9");
            settings.put(ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_PARTITION);
        }
    };

    private final String label;
    private final boolean shapes;
    private final AdmissionMode admission;

    BenchApp(String label, boolean shapes, AdmissionMode admission) {
        this.label = label;
        this.shapes = shapes;
        this.admission = admission;
    }

    /** The app named {@code label} (as in {@code --apps}). */
    static BenchApp byLabel(String label) {
        for (BenchApp app : values()) {
            if (app.label.equals(label)) {
                return app;
            }
        }
        throw new IllegalArgumentException("unknown app \"" + label + "\"; expected one of pass-through,"
                + " pass-through+header, naive-queue, shaper, shaper+batched, shaper+strict, shaper+pooled-total,"
                + " shaper+binding-total, shaper+leased-total, shaper+fixed-total, shaper+shadow");
    }

    /** Adds what this app sets beside the scenario's shaper settings (nothing, for most). */
    void addSettings(Map<String, String> settings) {
    }

    /** The shadow topic of run {@code runId}, or null for an app without one. */
    String shadowTopic(String runId) {
        return null;
    }

    /** Whether the app needs Redis: for admission, or for the capacity's leases. */
    boolean usesRedis() {
        return admission != null;
    }

    /** The admission mode this app measures, or null for none. */
    AdmissionMode admission() {
        return admission;
    }

    String label() {
        return label;
    }

    /** Whether the application is the shaper (which has a rejected topic and shaping settings). */
    boolean shapes() {
        return shapes;
    }

    /** Whether the application keeps a logged store, whose changelog bytes the results show. */
    boolean hasStore() {
        return shapes;
    }

    /**
     * @param admission the app's admission (for the admission apps), else null
     * @param capacity  the instance's pool of the total rate, or null for one made from the settings
     */
    Topology topology(ShaperConfig config, int partitions, AdmissionController admission, CapacityPool capacity) {
        RuleBook rules = RulesFile.forConfig(config); // the defaults, in shadow under shaper.mode=shadow
        return TopologyWiring.build(config, new TopologyWiring.Parts(rules, partitions, admission,
                ShaperMetrics.inMemory(), TopicLimits.assumed(config.producerMaxRequestSize()), capacity,
                new TaskBacklogs()));
    }
}
