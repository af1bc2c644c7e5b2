package dev.shaper.testsupport;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One shaper instance inside the test JVM: Kafka Streams running the shaper's topology, with its own state
 * directory and, when the settings ask for admission, its own {@link AdmissionController} (its own Redis
 * connections and local buckets), as a separate process would have.
 */
public final class ShaperInstance implements AutoCloseable {

    private final ShaperApplication application;
    private final Path stateDir;

    private ShaperInstance(ShaperApplication application, Path stateDir) {
        this.application = application;
        this.stateDir = stateDir;
    }

    /** Starts an instance, as {@code java -jar shaper.jar} would; see {@link ShaperConfig} for the settings. */
    public static ShaperInstance start(Map<String, Object> settings) throws Exception {
        ShaperInstance instance = create(settings);
        instance.application.start();
        return instance;
    }

    /**
     * Creates an instance without starting Kafka Streams (its HTTP server already answers), in a state
     * directory of its own that {@link #close} removes.
     */
    public static ShaperInstance create(Map<String, Object> settings) throws Exception {
        Path stateDir = Files.createTempDirectory("shaper-instance");
        Map<String, String> all = new HashMap<>();
        settings.forEach((k, v) -> all.put(k, String.valueOf(v)));
        all.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        all.putIfAbsent(ShaperConfig.HTTP_PORT_CONFIG, "0"); // a fixed port could be taken on the test machine
        return new ShaperInstance(ShaperApplication.create(all), stateDir);
    }

    public KafkaStreams streams() {
        return application.streams();
    }

    public ShaperApplication application() {
        return application;
    }

    /** This instance's meters. */
    public MeterRegistry meters() {
        return application.meterRegistry();
    }

    /** The value of gauge {@code name} with the tag {@code tag=value} (no tag when {@code tag} is null). */
    public double gauge(String name, String tag, String value) {
        return (tag == null ? meters().get(name) : meters().get(name).tag(tag, value)).gauge().value();
    }

    /** The count of function counter {@code name} with the tag {@code tag=value} (null: untagged). */
    public double functionCount(String name, String tag, String value) {
        return (tag == null ? meters().get(name) : meters().get(name).tag(tag, value)).functionCounter().count();
    }

    /** How many active tasks (input partitions) this instance runs now. */
    public int activeTasks() {
        return streams().metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size()).sum();
    }

    /** Waits until every instance is RUNNING and each runs at least one active task. */
    public static void awaitBalanced(Duration timeout, ShaperInstance... instances) {
        Await.until("instances running with a task each", timeout, () -> {
            for (ShaperInstance i : instances) {
                if (i.streams().state() != KafkaStreams.State.RUNNING || i.activeTasks() == 0) {
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

    /**
     * Names the instance's topics after {@code prefix}: {@code <prefix>-in}, {@code <prefix>-out} and
     * {@code <prefix>-rejected}, as the tests create them.
     */
    public static void useTopics(Map<String, Object> settings, String prefix) {
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, prefix + "-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, prefix + "-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, prefix + "-rejected");
    }

    @Override
    public void close() throws Exception {
        application.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
