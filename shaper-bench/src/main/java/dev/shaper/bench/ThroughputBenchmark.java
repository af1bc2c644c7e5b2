package dev.shaper.bench;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RedisServer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Throughput of the shaper against a pass-through Kafka Streams application on the same broker, in the same
 * run: records/s from {@code KafkaStreams.start()} until the last output record is committed. The broker, the
 * input loader and the output counter run in this JVM; each application type runs in a JVM of its own
 * ({@link WorkerProcesses}) unless {@code --app.jvm=shared}.
 *
 * <p>Every measurement uses fresh topics (all with the same partition count) and a fresh
 * {@code application.id}; its input is loaded completely before the application starts; a
 * {@code read_committed} consumer ({@link OutputCounter}) counts the output and stops the clock when every
 * input record has come out. Every application ({@link BenchApp}) takes its Kafka Streams settings from
 * {@link ShaperConfig#streamsProperties()} (exactly-once v2 unless told otherwise), so they differ only in
 * their topology. See {@link Scenario} for the two load patterns and {@link BenchmarkOptions} for the options.
 *
 * <p>Run it with {@code shaper-bench/run-benchmark.sh}. The results table goes to standard output and to
 * {@code --results.file}. Exit code 0 when every measurement completed, 1 otherwise, 2 for bad options.
 */
public final class ThroughputBenchmark {

    private static final long PROGRESS_EVERY_MS = 2_000;

    private final KafkaBroker broker;
    private final BenchmarkOptions options;
    private final Path stateRoot;
    private final String redisUri;
    /** What redis-server spent, for the admission apps; null without them. */
    private final RedisCpu redisCpu;
    private int sequence;
    private AppRunner runner;

    private ThroughputBenchmark(KafkaBroker broker, BenchmarkOptions options, Path stateRoot, String redisUri,
                                RedisCpu redisCpu) {
        this.redisUri = redisUri;
        this.redisCpu = redisCpu;
        this.broker = broker;
        this.options = options;
        this.stateRoot = stateRoot;
    }

    public static void main(String[] args) throws Exception {
        BenchmarkOptions options = BenchCommandLine.options(args, BenchmarkOptions.usage(), "benchmark",
                a -> BenchmarkOptions.parse(a, System.getProperties()));
        if (options == null) {
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
        boolean admitting = options.apps().stream().anyMatch(BenchApp::usesRedis);
        try (KafkaBroker broker = KafkaBroker.start();
             RedisServer redis = admitting && options.redisUri() == null ? RedisServer.start() : null) {
            header.add("broker: one local broker at " + broker.bootstrapServers()
                    + " (in-JVM KRaft unless a Docker engine was found), shared with the apps under test");
            String redisUri = redis != null ? redis.uri() : options.redisUri();
            if (admitting) {
                header.add("redis: " + (redis != null ? "a redis-server started for the run at " + redisUri
                        : "given by --redis.uri") + "; admission rate 1e9/s, so the admission apps refuse nothing;"
                        + " the leased app renews a lease every quarter of shaper.capacity.lease.ms");
            }
            try (RedisCpu redisCpu = admitting ? new RedisCpu(redisUri) : null) {
                ThroughputBenchmark bench = new ThroughputBenchmark(broker, options, stateRoot, redisUri, redisCpu);
                try {
                    header.add(bench.runner().describe());
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
                } finally {
                    bench.runner().close();
                }
            }
        } finally {
            if (tempStateRoot) {
                AppRun.deleteRecursively(stateRoot);
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
     * Runs every app in every scenario, untimed, until the JIT has compiled what it runs: an app whose round
     * spent under {@link BenchmarkOptions#SETTLED_JIT_SHARE} of its time compiling is warm and sits out the
     * later rounds. (The JIT time is that of the JVM the app runs in; with {@code --app.jvm=shared}, of the
     * JVM all of them share, so there every app waits for the slowest.) One round of small runs was not enough:
     * the compilers still took a third of the 2 cores in the first timed runs.
     */
    private void warmUp() throws Exception {
        String guarantee = options.guarantees().get(0);
        boolean ownJvms = options.appsInOwnJvms();
        List<BenchApp> cold = new ArrayList<>(options.apps());
        for (int round = 1; round <= options.warmupRounds() && !cold.isEmpty(); round++) {
            Map<BenchApp, double[]> jitAndSeconds = new HashMap<>();
            for (Scenario scenario : options.scenarios()) {
                for (BenchApp app : cold) {
                    Measurement m = measure(guarantee, scenario, app,
                            Math.min(options.warmupRecords(), options.recordsFor(app)));
                    report("warm-up " + round, m);
                    double[] sums = jitAndSeconds.computeIfAbsent(app, a -> new double[2]);
                    if (m.ok()) {
                        sums[0] += m.jitSeconds();
                        sums[1] += m.totalSeconds();
                    } else {
                        sums[0] = Double.POSITIVE_INFINITY; // a failed run proves nothing
                    }
                }
            }
            List<BenchApp> settled = new ArrayList<>();
            for (BenchApp app : cold) {
                double[] sums = jitAndSeconds.get(app);
                boolean warm = sums[0] < BenchmarkOptions.SETTLED_JIT_SHARE * sums[1];
                System.out.printf(Locale.ROOT, "warm-up round %d, %s: JIT compiled for %.2f s of %.2f s%s%n", round,
                        app.label(), sums[0], sums[1], !warm ? "" : ownJvms
                                ? ": settled" : ": settled (shared JVM: until every app is)");
                if (warm) {
                    settled.add(app);
                }
            }
            // In its own JVM an app is warm on its own; in a shared JVM every app's code is every app's JIT.
            if (ownJvms) {
                cold.removeAll(settled);
            } else if (settled.size() == cold.size()) {
                cold.clear();
            }
        }
        if (!cold.isEmpty()) {
            System.out.println("warm-up: the JIT had not settled after " + options.warmupRounds() + " rounds for "
                    + cold.stream().map(BenchApp::label).toList());
        }
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
        String shadow = app.shadowTopic(id);
        if (shadow != null) {
            broker.createTopics(options.partitions(), shadow);
        }
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
            app.addSettings(settings);
            if (shadow != null) {
                settings.put(ShaperConfig.SHADOW_TOPIC_CONFIG, shadow);
            }
        }
        if (app.usesRedis()) {
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redisUri);
        }
        if (app.admission() != null) {
            settings.put(ShaperConfig.ADMISSION_RATE_CONFIG, "1e9");
            settings.put(ShaperConfig.ADMISSION_BURST_CONFIG, "1e9");
            settings.put(ShaperConfig.ADMISSION_MODE_CONFIG, app.admission().name().toLowerCase(Locale.ROOT));
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redisUri);
        }
        AppRunner runner = runner();
        String error = null;
        double firstOutputSeconds = Double.NaN;
        double inputDoneSeconds = Double.NaN;
        double totalSeconds = Double.NaN;
        AppFigures figures = null;
        OutputCounter counter = new OutputCounter(broker.bootstrapServers(), output, rejected,
                options.partitions(), records);
        Admin admin = broker.admin();
        InputProgressProbe inputProgress = new InputProgressProbe(admin, id, input, records);
        try {
            counter.start();
            double redisCpuStart = redisCpu != null && app.admission() != null ? redisCpu.seconds() : Double.NaN;
            long ownJitStart = AppRun.compilationMillis();
            ThreadCpuSnapshot ownCpuStart = ThreadCpuSnapshot.take();
            inputProgress.start();
            long start = runner.start(app, settings, options.partitions());
            long deadline = start + TimeUnit.SECONDS.toNanos(options.timeoutSeconds());
            while (!counter.awaitComplete(PROGRESS_EVERY_MS)) {
                error = runner.failure();
                if (error != null) {
                    break;
                }
                if (counter.failure() != null) {
                    error = "output counter failed: " + counter.failure();
                    break;
                }
                long now = System.nanoTime();
                System.out.printf(Locale.ROOT, "  %s: after %.1f s: %d/%d out, %d input committed (state %s)%n", id,
                        (now - start) / 1e9, counter.shaped() + counter.rejected(), records,
                        inputProgress.committed(), runner.state());
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
                figures = runner.figures();
                // In a shared JVM the app's figures already hold this JVM's threads.
                Map<String, Double> ownCpu = options.appsInOwnJvms()
                        ? ThreadCpuSnapshot.take().secondsSince(ownCpuStart) : null;
                printCpuBreakdown(id, records, figures.cpuSeconds(), ownCpu,
                        (AppRun.compilationMillis() - ownJitStart) / 1e3);
                System.out.println("  " + id + ": producer: " + figures.producerBatching());
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
        } catch (Exception e) {
            error = error != null ? error : e.toString();
        } finally {
            inputProgress.close();
            admin.close();
            try {
                runner.stop();
            } catch (Exception e) {
                System.out.println("  (could not stop " + id + " cleanly: " + e + ")");
            }
            counter.close();
            deleteTopics(id);
        }
        return new Measurement(guarantee, scenario, app, records, counter.shaped(), counter.rejected(),
                firstOutputSeconds, inputDoneSeconds, totalSeconds,
                figures == null ? 0 : figures.streamThreadCpuSeconds(),
                figures == null ? 0 : figures.appThreadsCpuSeconds(), figures == null ? 0 : figures.changelogBytes(),
                counter.queueStats(), loadAverage(), figures == null ? Double.NaN : figures.jitSeconds(), error);
    }

    /** Where the applications run ({@code --app.jvm}); the worker JVMs are started at first use. */
    private AppRunner runner() {
        if (runner == null) {
            runner = options.appsInOwnJvms() ? new WorkerProcesses(options.appJvmOptions())
                    : new AppRunner.InProcess();
        }
        return runner;
    }

    /**
     * Where the CPU went during the measurement, per thread group, in microseconds per record: the app's JVM
     * (with {@code --app.jvm=shared} also the broker, the loader and the output counter) and, with the app in a
     * JVM of its own, the benchmark's JVM (broker, counter) and its JIT. On a machine whose cores all of them
     * share, an app's throughput depends on the CPU it makes the others spend too. (The benchmark JVM's window
     * opens just before it asks the worker to start the app, so it also holds the few milliseconds in which the
     * worker builds the app; the app JVM's window opens at {@code KafkaStreams.start()}.)
     */
    private static void printCpuBreakdown(String id, long records, Map<String, Double> app, Map<String, Double> own,
                                          double ownJitSeconds) {
        double total = app.values().stream().mapToDouble(Double::doubleValue).sum()
                + (own == null ? 0 : own.values().stream().mapToDouble(Double::doubleValue).sum());
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "  %s: CPU us/record, all threads %.2f;%s", id, total * 1e6 / records, own == null ? "" : " app JVM:"));
        app.entrySet().stream().limit(10).forEach(e -> line.append(String.format(Locale.ROOT, " %s %.2f;",
                e.getKey(), e.getValue() * 1e6 / records)));
        if (own != null) {
            line.append(String.format(Locale.ROOT, " benchmark JVM (JIT %.2f s):", ownJitSeconds));
            own.entrySet().stream().limit(8).forEach(e -> line.append(String.format(Locale.ROOT, " %s %.2f;",
                    e.getKey(), e.getValue() * 1e6 / records)));
        }
        System.out.println(line);
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
}
