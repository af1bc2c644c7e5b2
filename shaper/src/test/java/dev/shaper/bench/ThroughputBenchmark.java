package dev.shaper.bench;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RedisServer;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * Throughput of the shaper against a pass-through Kafka Streams application on the same broker, in the same
 * run: records/s from {@code KafkaStreams.start()} until the last output record is committed.
 *
 * <p>Every measurement uses fresh topics (all with the same partition count) and a fresh
 * {@code application.id}; its input is loaded completely before the application starts; a
 * {@code read_committed} consumer ({@link OutputCounter}) counts the output and stops the clock when every
 * input record has come out. Both applications take their Kafka Streams settings from
 * {@link ShaperConfig#streamsProperties()} (exactly-once v2 unless told otherwise), so they differ only in
 * their topology. See {@link Scenario} for the two load patterns and {@link BenchmarkOptions} for the options.
 *
 * <p>Run it with {@code shaper/bench/run-benchmark.sh}. The results table goes to standard output and to
 * {@code --results.file}. Exit code 0 when every measurement completed, 1 otherwise, 2 for bad options.
 */
public final class ThroughputBenchmark {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);
    private static final long PROGRESS_EVERY_MS = 2_000;

    private final KafkaBroker broker;
    private final BenchmarkOptions options;
    private final Path stateRoot;
    private final String redisUri;
    /** What redis-server spent, for the admission apps; null without them. */
    private final RedisCpu redisCpu;
    private int sequence;

    private ThroughputBenchmark(KafkaBroker broker, BenchmarkOptions options, Path stateRoot, String redisUri,
                                RedisCpu redisCpu) {
        this.redisUri = redisUri;
        this.redisCpu = redisCpu;
        this.broker = broker;
        this.options = options;
        this.stateRoot = stateRoot;
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help")) {
            System.out.println(BenchmarkOptions.usage());
            return;
        }
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args, System.getProperties());
        } catch (IllegalArgumentException e) {
            System.err.println("benchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        List<String> header = new ArrayList<>();
        header.add("Shaper throughput benchmark, " + Instant.now());
        header.add("machine: " + Runtime.getRuntime().availableProcessors() + " cores, Java "
                + System.getProperty("java.version") + ", max heap " + Runtime.getRuntime().maxMemory() / (1 << 20)
                + " MiB, load average at start " + String.format(Locale.ROOT, "%.1f", loadAverage()));
        header.addAll(options.describe());
        header.forEach(System.out::println);

        List<Measurement> results = new ArrayList<>();
        boolean tempStateRoot = options.stateDir() == null;
        Path stateRoot = tempStateRoot ? Files.createTempDirectory("shaper-bench-state")
                : Files.createDirectories(options.stateDir());
        boolean admitting = options.apps().stream().anyMatch(a -> a.admission() != null);
        try (KafkaBroker broker = KafkaBroker.start();
             RedisServer redis = admitting && options.redisUri() == null ? RedisServer.start() : null) {
            header.add("broker: one local broker at " + broker.bootstrapServers()
                    + " (in-JVM KRaft unless a Docker engine was found), shared with the apps under test");
            String redisUri = redis != null ? redis.uri() : options.redisUri();
            if (admitting) {
                header.add("redis: " + (redis != null ? "a redis-server started for the run at " + redisUri
                        : "given by --redis.uri") + "; admission rate 1e9/s, so the admission apps refuse nothing");
            }
            try (RedisCpu redisCpu = admitting ? new RedisCpu(redisUri) : null) {
                ThroughputBenchmark bench = new ThroughputBenchmark(broker, options, stateRoot, redisUri, redisCpu);
                if (options.warmupRecords() > 0) {
                    bench.warmUp();
                }
                for (int run = 0; run < options.repeat(); run++) {
                    for (String guarantee : options.guarantees()) {
                        for (Scenario scenario : options.scenarios()) {
                            for (BenchApp app : options.apps()) {
                                Measurement m = bench.measure(guarantee, scenario, app, options.recordsFor(app));
                                report("result", m);
                                results.add(m);
                            }
                        }
                    }
                }
            }
        } finally {
            if (tempStateRoot) {
                deleteRecursively(stateRoot);
            }
        }
        header.add("load average at end " + String.format(Locale.ROOT, "%.1f", loadAverage()));

        String table = ResultTable.format(header, results);
        System.out.println();
        System.out.println(table);
        Path file = options.resultsFile().toAbsolutePath();
        Files.createDirectories(file.getParent());
        Files.writeString(file, table, StandardCharsets.UTF_8);
        System.out.println("written to " + file);
        System.exit(results.stream().allMatch(Measurement::ok) ? 0 : 1);
    }

    /**
     * Runs every app in every scenario, untimed, until the JIT has compiled what they run: a round that
     * spent under {@link BenchmarkOptions#SETTLED_JIT_SHARE} of its time compiling ends the warm-up. One round
     * is not enough: the compilers still took a third of the 2 cores in the first timed runs.
     */
    private void warmUp() throws Exception {
        String guarantee = options.guarantees().get(0);
        for (int round = 1; round <= options.warmupRounds(); round++) {
            double seconds = 0;
            double jit = 0;
            for (Scenario scenario : options.scenarios()) {
                for (BenchApp app : options.apps()) {
                    Measurement m = measure(guarantee, scenario, app,
                            Math.min(options.warmupRecords(), options.recordsFor(app)));
                    report("warm-up " + round, m);
                    if (m.ok()) {
                        seconds += m.totalSeconds();
                        jit += m.jitSeconds();
                    }
                }
            }
            boolean settled = jit < BenchmarkOptions.SETTLED_JIT_SHARE * seconds;
            System.out.printf(Locale.ROOT, "warm-up round %d: JIT compiled for %.2f s of %.2f s%s%n", round, jit,
                    seconds, settled ? ": settled" : "");
            if (settled) {
                return;
            }
        }
        System.out.println("warm-up: the JIT had not settled after " + options.warmupRounds() + " rounds");
    }

    /** Loads a fresh input topic, runs {@code app} over it until all its output is committed, and cleans up. */
    private Measurement measure(String guarantee, Scenario scenario, BenchApp app, long records)
            throws Exception {
        String id = String.format(Locale.ROOT, "bench-%d-%s-%s-%s", ++sequence, scenario.label(),
                app.label().replace('+', '-'),
                guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2) ? "eos" : "alos");
        String input = id + "-in";
        String output = id + "-out";
        String rejected = app.shapes() ? id + "-rejected" : null;
        broker.createTopics(options.partitions(), rejected == null ? new String[] {input, output}
                : new String[] {input, output, rejected});
        double loadRate = InputLoader.load(broker.bootstrapServers(), input, records, scenario, options);
        System.out.printf(Locale.ROOT, "%s: loaded %d records into %s (%.0f records/s)%n", id, records, input,
                loadRate);

        Map<String, String> settings = new HashMap<>();
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, id);
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateRoot.resolve(id).toString());
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        settings.putAll(options.streamsOverrides());
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, input);
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, output);
        if (app.shapes()) {
            settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, rejected);
            settings.putAll(scenario.shaperSettings(options));
        }
        if (app.admission() != null) {
            settings.put(ShaperConfig.ADMISSION_RATE_CONFIG, "1e9");
            settings.put(ShaperConfig.ADMISSION_BURST_CONFIG, "1e9");
            settings.put(ShaperConfig.ADMISSION_MODE_CONFIG, app.admission().name().toLowerCase(Locale.ROOT));
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redisUri);
        }
        ShaperConfig config = new ShaperConfig(settings);
        AdmissionController admission = app.admission() == null ? null : ShaperApplication.createAdmission(config);

        AtomicReference<Throwable> streamsFailure = new AtomicReference<>();
        KafkaStreams streams = new KafkaStreams(app.topology(config, options.partitions(), admission),
                config.streamsProperties());
        streams.setUncaughtExceptionHandler(e -> {
            streamsFailure.compareAndSet(null, e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        String error = null;
        double firstOutputSeconds = Double.NaN;
        double inputDoneSeconds = Double.NaN;
        double totalSeconds = Double.NaN;
        double streamThreadCpu = 0;
        double appThreadsCpu = 0;
        double changelogBytes = 0;
        double jitSeconds = Double.NaN;
        OutputCounter counter = new OutputCounter(broker.bootstrapServers(), output, rejected,
                options.partitions(), records);
        Admin admin = broker.admin();
        InputProgressProbe inputProgress = new InputProgressProbe(admin, id, input, records);
        try {
            counter.start();
            double redisCpuStart = redisCpu != null && app.admission() != null ? redisCpu.seconds() : Double.NaN;
            long jitStart = compilationMillis();
            ThreadCpuSnapshot cpuStart = ThreadCpuSnapshot.take();
            long start = System.nanoTime();
            inputProgress.start();
            streams.start();
            long deadline = start + TimeUnit.SECONDS.toNanos(options.timeoutSeconds());
            while (!counter.awaitComplete(PROGRESS_EVERY_MS)) {
                if (streamsFailure.get() != null || streams.state() == KafkaStreams.State.ERROR) {
                    error = "Kafka Streams failed: " + streamsFailure.get();
                    break;
                }
                if (counter.failure() != null) {
                    error = "output counter failed: " + counter.failure();
                    break;
                }
                long now = System.nanoTime();
                System.out.printf(Locale.ROOT, "  %s: after %.1f s: %d/%d out, %d input committed (state %s)%n", id,
                        (now - start) / 1e9, counter.shaped() + counter.rejected(), records,
                        inputProgress.committed(), streams.state());
                if (now > deadline) {
                    error = "timeout after " + options.timeoutSeconds() + " s";
                    break;
                }
            }
            if (error == null && counter.completeNanos() == 0) {
                error = "output counter failed: " + counter.failure();
            }
            if (error == null) {
                totalSeconds = (counter.completeNanos() - start) / 1e9;
                jitSeconds = (compilationMillis() - jitStart) / 1e3;
                printCpuBreakdown(id, records, ThreadCpuSnapshot.take().secondsSince(cpuStart));
                printProducerBatching(id, streams);
                if (!Double.isNaN(redisCpuStart)) {
                    System.out.printf(Locale.ROOT, "  %s: redis-server CPU us/record %.2f (outside the JVM; for a"
                            + " --redis.uri, all of that server's load)%n", id,
                            (redisCpu.seconds() - redisCpuStart) * 1e6 / records);
                }
            }
            // The probe polls every 50 ms; give it a moment to see the final commit.
            long probeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (error == null && inputProgress.completeNanos() == 0 && System.nanoTime() < probeDeadline) {
                Thread.sleep(20);
            }
            if (inputProgress.completeNanos() != 0) {
                inputDoneSeconds = (inputProgress.completeNanos() - start) / 1e9;
            }
            if (counter.firstOutputNanos() != 0) {
                firstOutputSeconds = (counter.firstOutputNanos() - start) / 1e9;
            }
            double[] cpu = threadCpuSeconds(id);
            streamThreadCpu = cpu[0];
            appThreadsCpu = cpu[1];
            changelogBytes = changelogBytesSent(streams);
        } finally {
            inputProgress.close();
            admin.close();
            streams.close(CLOSE_TIMEOUT);
            if (admission != null) {
                admission.close();
            }
            streams.cleanUp();
            deleteRecursively(stateRoot.resolve(id));
            counter.close();
            deleteTopics(id);
        }
        return new Measurement(guarantee, scenario, app, records, counter.shaped(), counter.rejected(),
                firstOutputSeconds, inputDoneSeconds, totalSeconds, streamThreadCpu, appThreadsCpu, changelogBytes,
                counter.queueStats(), loadAverage(), jitSeconds, error);
    }

    /**
     * Where the CPU of the whole JVM (broker, apps, JIT, GC, RocksDB) went during the measurement, per thread
     * group, in microseconds per record: on a machine whose cores all of them share, an app's throughput
     * depends on the CPU it makes the others spend too.
     */
    private static void printCpuBreakdown(String id, long records, Map<String, Double> seconds) {
        double total = seconds.values().stream().mapToDouble(Double::doubleValue).sum();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "  %s: CPU us/record, all threads %.2f:", id, total * 1e6 / records));
        seconds.entrySet().stream().limit(10).forEach(e -> line.append(String.format(Locale.ROOT, " %s %.2f;",
                e.getKey(), e.getValue() * 1e6 / records)));
        System.out.println(line);
    }

    /**
     * How the app's producer batched: requests and records per request decide much of the broker's CPU per
     * record, and they depend on how fast the app appends (a slower app sends smaller batches, more often).
     */
    private static void printProducerBatching(String id, KafkaStreams streams) {
        Map<String, Double> values = new HashMap<>();
        streams.metrics().forEach((name, metric) -> {
            if (name.group().equals("producer-metrics") && metric.metricValue() instanceof Double value) {
                values.put(name.name(), value);
            }
        });
        System.out.printf(Locale.ROOT, "  %s: producer: %.0f requests, %.1f records/request, batch %.0f B avg,"
                        + " record %.0f B avg%n", id, values.getOrDefault("request-total", Double.NaN),
                values.getOrDefault("records-per-request-avg", Double.NaN),
                values.getOrDefault("batch-size-avg", Double.NaN), values.getOrDefault("record-size-avg", Double.NaN));
    }

    /** Milliseconds the JIT compilers have spent so far, or 0 where the JVM does not tell. */
    private static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /**
     * Bytes the application's producers sent to its changelog topics, from the producers' own per-topic metric
     * ({@code producer-topic-metrics}, {@code byte-total}): what keeping the queues cost the broker (batch bytes,
     * tombstones included). Read before the application closes.
     */
    private static double changelogBytesSent(KafkaStreams streams) {
        double bytes = 0;
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> e
                : streams.metrics().entrySet()) {
            org.apache.kafka.common.MetricName name = e.getKey();
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
     * contains the application id. Read before the application closes, while its threads still exist.
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

    /** Deletes the measurement's topics, internal ones included, so later measurements start on a lean broker. */
    private void deleteTopics(String prefix) {
        try (Admin admin = broker.admin()) {
            List<String> topics = admin.listTopics().names().get(60, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(prefix + "-")).toList();
            admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.out.println("  (could not delete the topics of " + prefix + ": " + e + ")");
        }
    }

    private static void report(String what, Measurement m) {
        System.out.printf(Locale.ROOT, "%s: %s %s %s: %s%n", what, m.guarantee(), m.scenario().label(),
                m.app().label(), m.ok()
                        ? String.format(Locale.ROOT, "%.0f records/s (%.2f s, first output after %.2f s, JIT %.2f s)%s",
                                m.recordsPerSecond(), m.totalSeconds(), m.firstOutputSeconds(), m.jitSeconds(),
                                m.app().shapes() ? String.format(Locale.ROOT, ", queued %.2f %%, rejected %d",
                                        100 * m.queuedFraction(), m.rejected()) : "")
                        : "FAILED: " + m.error() + " (" + (m.output() + m.rejected()) + " of " + m.records()
                                + " out)");
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void deleteRecursively(Path root) throws IOException {
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
