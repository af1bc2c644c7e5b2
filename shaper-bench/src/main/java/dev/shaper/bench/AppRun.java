package dev.shaper.bench;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.wiring.AdmissionWiring;
import dev.shaper.internals.wiring.CapacityWiring;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * One measured application in the JVM that runs it: built from its settings, started, asked for its figures
 * when its output is complete, and closed with its state removed. The same code runs in the benchmark's own JVM
 * ({@code --app.jvm=shared}) and in an {@link AppWorker} ({@code --app.jvm=worker}).
 */
final class AppRun {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final String applicationId;
    private final Path stateDir;
    private final KafkaStreams streams;
    private final AdmissionController admission;
    private final CapacityWiring.Capacity capacity;
    /** The run's Redis client, as an instance's, when its settings name a Redis; null otherwise. */
    private final RedisClients.Client redis;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private long jitStartMillis;
    private ThreadCpuSnapshot cpuStart;

    /**
     * @param settings   the Kafka Streams and shaper settings of the run ({@code application.id} and
     *                   {@code state.dir} included)
     * @param partitions partitions of the input topic
     */
    AppRun(BenchApp app, Map<String, String> settings, int partitions) {
        ShaperConfig config = new ShaperConfig(settings);
        this.applicationId = settings.get(StreamsConfig.APPLICATION_ID_CONFIG);
        this.stateDir = Path.of(settings.get(StreamsConfig.STATE_DIR_CONFIG));
        this.redis = AdmissionWiring.redisClient(config);
        this.admission = app.admission() == null ? null : AdmissionWiring.forConfig(config, redis,
                () -> 1, 1); // one instance per run
        this.capacity = CapacityWiring.forConfig(config, redis, applicationId, partitions, settings);
        try {
            if (admission != null) {
                admission.start(); // connected and warmed up before the timed start
            }
            capacity.start();
            this.streams = new KafkaStreams(app.topology(config, partitions, admission, capacity.pool()),
                    config.streamsProperties());
        } catch (RuntimeException e) {
            if (admission != null) {
                admission.close();
            }
            capacity.close();
            if (redis != null) {
                redis.close();
            }
            throw e;
        }
        streams.setUncaughtExceptionHandler(e -> {
            failure.compareAndSet(null, e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    }

    /** Starts the application; returns {@link System#nanoTime()} just before the start, the run's time zero. */
    long start() {
        jitStartMillis = compilationMillis();
        cpuStart = ThreadCpuSnapshot.take();
        long start = System.nanoTime();
        streams.start();
        return start;
    }

    /** Why the application failed, or null while it runs. */
    String failure() {
        if (failure.get() != null || streams.state() == KafkaStreams.State.ERROR) {
            return "Kafka Streams failed: " + failure.get();
        }
        return null;
    }

    /** The application's Kafka Streams state, for progress lines. */
    String state() {
        return streams.state().toString();
    }

    /** The figures of the run so far; call while the application still runs. */
    AppFigures figures() {
        double jit = (compilationMillis() - jitStartMillis) / 1e3;
        Map<String, Double> cpu = ThreadCpuSnapshot.take().secondsSince(cpuStart);
        double[] threads = threadCpuSeconds(applicationId);
        return new AppFigures(jit, cpu, threads[0], threads[1], changelogBytesSent(streams), producerBatching(streams));
    }

    /**
     * Closes the application and removes its local state.
     *
     * @throws IllegalStateException if it did not close in time: its threads may still run, and the JVM
     *                               that holds it should go (see {@link WorkerProcesses#stop})
     */
    void close() throws IOException {
        boolean closed;
        try {
            closed = streams.close(CLOSE_TIMEOUT);
        } finally {
            if (admission != null) {
                admission.close();
            }
            capacity.close();
            if (redis != null) {
                redis.close();
            }
        }
        if (!closed) {
            throw new IllegalStateException(applicationId + " did not close within " + CLOSE_TIMEOUT.toSeconds()
                    + " s");
        }
        streams.cleanUp();
        deleteRecursively(stateDir);
    }

    /**
     * How the app's producer batched: requests and records per request decide much of the broker's CPU per
     * record, and they depend on how fast the app appends (a slower app sends smaller batches, more often).
     */
    private static String producerBatching(KafkaStreams streams) {
        Map<String, Double> values = new HashMap<>();
        streams.metrics().forEach((name, metric) -> {
            if (name.group().equals("producer-metrics") && metric.metricValue() instanceof Double value) {
                values.put(name.name(), value);
            }
        });
        return String.format(Locale.ROOT, "%.0f requests, %.1f records/request, batch %.0f B avg, record %.0f B avg",
                values.getOrDefault("request-total", Double.NaN),
                values.getOrDefault("records-per-request-avg", Double.NaN),
                values.getOrDefault("batch-size-avg", Double.NaN), values.getOrDefault("record-size-avg", Double.NaN));
    }

    /**
     * Bytes the application's producers sent to its changelog topics, from the producers' own per-topic metric
     * ({@code producer-topic-metrics}, {@code byte-total}): what keeping the queues cost the broker (batch bytes,
     * tombstones included).
     */
    private static double changelogBytesSent(KafkaStreams streams) {
        double bytes = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            String topic = name.tags().get("topic");
            if (name.group().equals("producer-topic-metrics") && name.name().equals("byte-total") && topic != null
                    && topic.endsWith("-changelog") && e.getValue().metricValue() instanceof Double value) {
                bytes += value;
            }
        }
        return bytes;
    }

    /**
     * CPU seconds of the application's Java threads: [0] its stream threads, [1] every thread whose name
     * contains the application id.
     */
    private static double[] threadCpuSeconds(String applicationId) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double stream = 0;
        double all = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (!name.contains(applicationId)) {
                continue;
            }
            long nanos = mx.getThreadCpuTime(t.getId());
            if (nanos < 0) {
                continue;
            }
            all += nanos / 1e9;
            if (name.matches(".*-StreamThread-\\d+")) {
                stream += nanos / 1e9;
            }
        }
        return new double[] {stream, all};
    }

    /** Milliseconds the JIT compilers of this JVM have spent so far, or 0 where the JVM does not tell. */
    static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
