package dev.shaper.testsupport;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperHeaders;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RulesFile;
import dev.shaper.internals.wiring.TopologyWiring;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The shaper's topology in a {@link TopologyTestDriver}, with wall-clock time under the test's control and
 * small helpers to pipe text records and read the shaped and rejected topics.
 */
public final class ShaperDriver implements AutoCloseable {

    /** The wall-clock time every driver starts at, so that tests can state absolute times. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final TopologyTestDriver driver;
    private final TestInputTopic<byte[], byte[]> input;
    private final TestOutputTopic<byte[], byte[]> shaped;
    private final TestOutputTopic<byte[], byte[]> rejected;
    /** Null without a shadow topic. */
    private final TestOutputTopic<byte[], byte[]> shadow;
    private final Path stateDir;
    private final ShaperMetrics metrics = new ShaperMetrics(new SimpleMeterRegistry(), () -> now().toEpochMilli());
    private final TaskBacklogs backlogs = new TaskBacklogs();

    private ShaperDriver(Map<String, String> shaperSettings, RuleBook rules, int partitions,
                         AdmissionController admission, TopicLimits limits) {
        try {
            stateDir = Files.createTempDirectory("shaper-driver");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        Map<String, String> settings = new HashMap<>(shaperSettings);
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "shaper-test");
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        ShaperConfig config = new ShaperConfig(settings);
        RuleBook book = rules != null ? rules : RulesFile.forConfig(config);
        if (admission == null && book.hasAdmission()) {
            // Rules that may gain an admission limit (live rules) need the stage: local buckets, never started.
            admission = new AdmissionController(null, config.admissionMode(), config.admissionSyncInterval(),
                    config.redisPingInterval(), () -> 1, new ManualScheduler(), System::nanoTime);
        }
        Properties props = config.streamsProperties();
        TopicLimits topicLimits = limits != null ? limits : TopicLimits.assumed(config.producerMaxRequestSize());
        // The pool stamps its changes by the driver's clock, the one the releases are stamped by.
        CapacityPool pool = config.totalRate() > 0 && config.totalRatePooled()
                ? new CapacityPool(config.totalRate(), partitions, () -> now().toEpochMilli()) : null;
        driver = new TopologyTestDriver(TopologyWiring.build(config, new TopologyWiring.Parts(book, partitions,
                admission, metrics, topicLimits, pool, backlogs)), props, START);
        input = driver.createInputTopic(config.inputTopic(), new ByteArraySerializer(), new ByteArraySerializer());
        shaped = driver.createOutputTopic(config.outputTopic(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        rejected = driver.createOutputTopic(config.rejectedTopic(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        shadow = config.shadowTopic() == null ? null : driver.createOutputTopic(config.shadowTopic(),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    public static ShaperDriver start(Map<String, String> shaperSettings) {
        return new ShaperDriver(shaperSettings, null, 1, null, null);
    }

    /** With the topics' limits as the application would read them from the brokers. */
    public static ShaperDriver start(Map<String, String> shaperSettings, TopicLimits limits) {
        return new ShaperDriver(shaperSettings, null, 1, null, limits);
    }

    public static ShaperDriver start(Map<String, String> shaperSettings, RuleBook rules, int partitions) {
        return new ShaperDriver(shaperSettings, rules, partitions, null, null);
    }

    /** With an admission stage; {@code rules} null means the settings' defaults. */
    public static ShaperDriver start(Map<String, String> shaperSettings, RuleBook rules,
                                     AdmissionController admission) {
        return new ShaperDriver(shaperSettings, rules, 1, admission, null);
    }

    /** Pipes a record with this text key and value at the current wall-clock time. */
    public void send(String key, String value, Header... headers) {
        send(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, headers);
    }

    /** Pipes a record with this text key, value and record timestamp at the current wall-clock time. */
    public void send(String key, String value, long timestampMs) {
        input.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8),
                new RecordHeaders(), timestampMs));
    }

    public void send(byte[] key, String value, Header... headers) {
        Headers h = new RecordHeaders(headers);
        input.pipeInput(new TestRecord<>(key, value.getBytes(StandardCharsets.UTF_8), h, now()));
    }

    /** The task's backlog in front of the total rate, as its last tick published it (see {@link TaskBacklogs}). */
    public TaskBacklogs backlogs() {
        return backlogs;
    }

    public Instant now() {
        return START.plusMillis(elapsedMs);
    }

    private long elapsedMs;

    /**
     * Advances wall-clock time a millisecond at a time, firing every punctuation on time as it falls due (the
     * driver fires each punctuation at most once per step, so one long step would be a stalled stream thread).
     */
    public void advance(Duration duration) {
        for (long ms = 0; ms < duration.toMillis(); ms++) {
            driver.advanceWallClockTime(Duration.ofMillis(1));
            elapsedMs++;
        }
    }

    /**
     * Advances wall-clock time in one step, as a stream thread that stalled for {@code duration} (a slow commit, a
     * GC pause) and then runs each punctuation that fell due once.
     */
    public void stall(Duration duration) {
        driver.advanceWallClockTime(duration);
        elapsedMs += duration.toMillis();
    }

    public List<TestRecord<byte[], byte[]>> readShaped() {
        return shaped.readRecordsToList();
    }

    /** The reports on the shadow topic ({@code shaper.shadow.topic} must be set). */
    public List<TestRecord<byte[], byte[]>> readShadow() {
        return shadow.readRecordsToList();
    }

    public List<TestRecord<byte[], byte[]>> readRejected() {
        return rejected.readRecordsToList();
    }

    /** The metrics the topology reports to, on the driver's wall clock. */
    public ShaperMetrics metrics() {
        return metrics;
    }

    @SuppressWarnings("unchecked")
    public <T> T store(String name) {
        return (T) driver.getStateStore(name);
    }

    public static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    public static String header(TestRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : text(h.value());
    }

    public static Header cost(String value) {
        return new org.apache.kafka.common.header.internals.RecordHeader(ShaperHeaders.COST,
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        driver.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException ignored) {
            // a leftover temp dir is not worth failing a test for
        }
    }
}
