package dev.shaper.testsupport;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.RedisTokenBuckets;
import dev.shaper.internals.cluster.LiveInstanceCounter;
import dev.shaper.internals.rules.RuleBook;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One shaper instance inside the test JVM: Kafka Streams running the shaper's topology, with its own state
 * directory and, when the settings ask for admission, its own {@link AdmissionController} (its own Redis
 * connections and local buckets), as a separate process would have.
 */
public final class ShaperInstance implements AutoCloseable {

    private final KafkaStreams streams;
    private final AdmissionController admission;
    private final LiveInstanceCounter instances;
    private final Path stateDir;

    private ShaperInstance(Map<String, Object> settings, int inputPartitions) throws Exception {
        stateDir = Files.createTempDirectory("shaper-instance");
        Map<String, Object> all = new HashMap<>(settings);
        all.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        ShaperConfig config = new ShaperConfig(all);
        RuleBook rules = new RuleBook(config.defaultShapingRule(), config.defaultAdmissionRule(), List.of());
        if (rules.hasAdmission()) {
            String uri = config.redisUri();
            RedisTokenBuckets redis = uri == null ? null
                    : new RedisTokenBuckets(uri, config.redisTimeout(),
                    RedisTokenBuckets.reconnectDelayFor(config.redisPingInterval()));
            admission = new AdmissionController(redis, config.admissionMode(), config.admissionSyncInterval(),
                    config.redisPingInterval(), System::nanoTime);
        } else {
            admission = null;
        }
        streams = new KafkaStreams(ShaperTopology.build(config, rules, inputPartitions, admission),
                config.streamsProperties());
        if (admission != null) {
            instances = new LiveInstanceCounter(streams,
                    ShaperApplication.adminConfig(config.streamsProperties()),
                    config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG), Duration.ofSeconds(5));
            admission.setLiveInstances(instances);
        } else {
            instances = null;
        }
    }

    /** Starts an instance; see {@link ShaperConfig} for the settings. */
    public static ShaperInstance start(Map<String, Object> settings, int inputPartitions) throws Exception {
        ShaperInstance instance = new ShaperInstance(settings, inputPartitions);
        instance.streams.start();
        return instance;
    }

    public KafkaStreams streams() {
        return streams;
    }

    public AdmissionController admission() {
        return admission;
    }

    /** How many active tasks (input partitions) this instance runs now. */
    public int activeTasks() {
        return streams.metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size()).sum();
    }

    /** Waits until every instance is RUNNING and each runs at least one active task. */
    public static void awaitBalanced(Duration timeout, ShaperInstance... instances) {
        Await.until("instances running with a task each", timeout, () -> {
            for (ShaperInstance i : instances) {
                if (i.streams.state() != KafkaStreams.State.RUNNING || i.activeTasks() == 0) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Settings shared by the tests: EOS, fast rebalances. */
    public static Map<String, Object> baseSettings(String bootstrapServers, String applicationId) {
        Map<String, Object> s = new HashMap<>();
        s.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        s.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        s.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        s.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1_000);
        return s;
    }

    @Override
    public void close() throws Exception {
        streams.close(Duration.ofSeconds(30));
        if (admission != null) {
            admission.close();
            instances.close();
        }
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** For tests that want a mode by name. */
    public static String mode(AdmissionMode mode) {
        return mode.name().toLowerCase(java.util.Locale.ROOT);
    }
}
