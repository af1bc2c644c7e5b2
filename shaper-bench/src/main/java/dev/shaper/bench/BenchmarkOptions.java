package dev.shaper.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The settings of one benchmark run, from command-line arguments {@code --name=value} or, for each name not
 * given as an argument, the system property {@code bench.name}. Any argument {@code --streams.X=Y} (or system
 * property {@code bench.streams.X}) is passed to both applications as the Kafka Streams setting {@code X=Y}.
 *
 * @param records          records loaded into the input topic of every measurement
 * @param keys             distinct record keys
 * @param partitions       partitions of every topic (input, output, rejected)
 * @param valueBytes       size of every record value
 * @param runLength        consecutive records of one key in the {@code queued} scenario's input
 * @param queuedRate       per-key rate (records/s) of the shaper in the {@code queued} scenario
 * @param scenarios        scenarios to measure, in order
 * @param guarantees       Kafka Streams processing guarantees to measure each scenario with
 * @param warmupRecords    records of each untimed warm-up measurement (every application, every scenario,
 *                         first guarantee); 0 skips the warm-up
 * @param warmupRounds     most warm-up rounds: an app warms up until the JIT compilers of its JVM spent under
 *                         {@value #SETTLED_JIT_SHARE} of its round's time compiling (with {@code appJvm}
 *                         "shared", until that holds for every app's round); on 2 cores, compiling takes CPU
 *                         from the app measured, and more from the app with more code to compile
 * @param timeoutSeconds   longest wait for one measurement's output
 * @param resultsFile      where the results table is written (besides standard output)
 * @param stateDir         parent of the applications' state directories (each is deleted after its
 *                         measurement); null for a temporary directory, deleted at the end
 * @param streamsOverrides extra Kafka Streams settings for both applications
 * @param apps             applications to measure, in order
 * @param strictRecords    records for the strict-admission app, whose Redis call per record makes it far slower
 * @param redisUri         Redis of the admission apps; null to start a redis-server for the run
 * @param repeat           how many times every measurement runs (interleaved, so drift hits all apps alike)
 * @param appJvm           "worker": each app type in a JVM of its own; "shared": the apps in the benchmark's JVM,
 *                         beside the broker
 * @param appJvmOptions    options of the apps' JVMs (with {@code appJvm} "worker")
 */
public record BenchmarkOptions(long records, int keys, int partitions, int valueBytes, int runLength,
                               double queuedRate, List<Scenario> scenarios, List<String> guarantees,
                               long warmupRecords, int warmupRounds, long timeoutSeconds, Path resultsFile, Path stateDir,
                               Map<String, String> streamsOverrides, List<BenchApp> apps, long strictRecords,
                               String redisUri, int repeat, String appJvm, List<String> appJvmOptions) {

    /**
     * Options of the apps' JVMs: a fixed, pre-touched heap, so that no app pays the kernel for zeroing pages its
     * heap grows into during a run (in a profile up to a quarter of a stream thread, more for the app that
     * allocates more).
     */
    static final String DEFAULT_APP_JVM_OPTIONS = "-Xms2g -Xmx2g -XX:+AlwaysPreTouch";

    /** Share of a warm-up round's time spent compiling below which the JIT counts as settled. */
    public static final double SETTLED_JIT_SHARE = 0.05;

    private static final String PROPERTY_PREFIX = "bench.";
    private static final String STREAMS_PREFIX = "streams.";
    private static final Set<String> NAMES = Set.of("records", "keys", "partitions", "value.bytes", "run.length",
            "queued.rate", "scenarios", "guarantees", "warmup.records", "warmup.rounds", "timeout.s", "results.file", "state.dir",
            "apps", "strict.records", "redis.uri", "repeat", "app.jvm", "app.jvm.opts");

    public BenchmarkOptions {
        require(records > 0, "records must be > 0");
        require(keys > 0, "keys must be > 0");
        require(partitions > 0, "partitions must be > 0");
        require(valueBytes >= 0, "value.bytes must be >= 0");
        require(runLength > 0, "run.length must be > 0");
        require(queuedRate > 0, "queued.rate must be > 0");
        require(!scenarios.isEmpty(), "scenarios must not be empty");
        require(!guarantees.isEmpty(), "guarantees must not be empty");
        require(warmupRecords >= 0, "warmup.records must be >= 0");
        require(warmupRounds > 0, "warmup.rounds must be > 0");
        require(timeoutSeconds > 0, "timeout.s must be > 0");
        scenarios = List.copyOf(scenarios);
        guarantees = List.copyOf(guarantees);
        streamsOverrides = Map.copyOf(streamsOverrides);
        require(!apps.isEmpty(), "apps must not be empty");
        require(strictRecords > 0, "strict.records must be > 0");
        require(repeat > 0, "repeat must be > 0");
        require(appJvm.equals("worker") || appJvm.equals("shared"), "app.jvm must be worker or shared, got \""
                + appJvm + "\"");
        apps = List.copyOf(apps);
        appJvmOptions = List.copyOf(appJvmOptions);
    }

    /** Whether each app type runs in a JVM of its own ({@code --app.jvm=worker}), not in the benchmark's. */
    public boolean appsInOwnJvms() {
        return appJvm.equals("worker");
    }

    /** Records to measure {@code app} with. */
    public long recordsFor(BenchApp app) {
        return app == BenchApp.SHAPER_STRICT ? Math.min(records, strictRecords) : records;
    }

    /** Reads the options; arguments win over system properties, which win over the defaults. */
    public static BenchmarkOptions parse(String[] args, Properties systemProperties) {
        Map<String, String> given = new LinkedHashMap<>();
        systemProperties.stringPropertyNames().stream()
                .filter(name -> name.startsWith(PROPERTY_PREFIX))
                .forEach(name -> given.put(name.substring(PROPERTY_PREFIX.length()),
                        systemProperties.getProperty(name)));
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got \"" + arg + "\"\n" + usage());
            }
            given.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        Map<String, String> streams = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : given.entrySet()) {
            if (e.getKey().startsWith(STREAMS_PREFIX)) {
                streams.put(e.getKey().substring(STREAMS_PREFIX.length()), e.getValue());
            } else if (!NAMES.contains(e.getKey())) {
                throw new IllegalArgumentException("unknown option \"" + e.getKey() + "\"\n" + usage());
            }
        }
        return new BenchmarkOptions(
                parseLong(given, "records", 2_000_000L),
                (int) parseLong(given, "keys", 10_000),
                (int) parseLong(given, "partitions", 4),
                (int) parseLong(given, "value.bytes", 100),
                (int) parseLong(given, "run.length", 200),
                Double.parseDouble(given.getOrDefault("queued.rate", "1000")),
                Arrays.stream(given.getOrDefault("scenarios", "unqueued,queued").split(","))
                        .map(String::trim).filter(s -> !s.isEmpty()).map(Scenario::byName).toList(),
                Arrays.stream(given.getOrDefault("guarantees", StreamsConfig.EXACTLY_ONCE_V2).split(","))
                        .map(String::trim).filter(s -> !s.isEmpty()).map(BenchmarkOptions::guarantee).toList(),
                parseLong(given, "warmup.records", 1_000_000),
                (int) parseLong(given, "warmup.rounds", 8),
                parseLong(given, "timeout.s", 900),
                Path.of(given.getOrDefault("results.file", "target/benchmark-results.txt")),
                given.containsKey("state.dir") ? Path.of(given.get("state.dir")) : null,
                streams,
                Arrays.stream(given.getOrDefault("apps", "pass-through,shaper").split(","))
                        .map(String::trim).filter(s -> !s.isEmpty()).map(BenchApp::byLabel).toList(),
                parseLong(given, "strict.records", 100_000),
                given.get("redis.uri"),
                (int) parseLong(given, "repeat", 3),
                given.getOrDefault("app.jvm", "worker"),
                appJvmOptions(given.getOrDefault("app.jvm.opts", DEFAULT_APP_JVM_OPTIONS), systemProperties));
    }

    /** The options, one line each, for the header of the results. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("records=" + records + " keys=" + keys + " partitions=" + partitions + " value.bytes=" + valueBytes);
        lines.add("scenarios=" + scenarios.stream().map(Scenario::label).toList() + " guarantees=" + guarantees
                + " warmup.records=" + warmupRecords + " warmup.rounds<=" + warmupRounds);
        lines.add("queued scenario: runs of " + runLength + " consecutive records per key, per-key rate "
                + queuedRate + "/s");
        lines.add("apps=" + apps.stream().map(BenchApp::label).toList()
                + (apps.contains(BenchApp.SHAPER_STRICT) ? " (shaper+strict: " + strictRecords + " records)" : "")
                + ", each measured " + repeat + " times, interleaved");
        if (!streamsOverrides.isEmpty()) {
            lines.add("Kafka Streams overrides (both apps): " + streamsOverrides);
        }
        return lines;
    }

    public static String usage() {
        return """
                options (--name=value, or -Dbench.name=value):
                  --records=2000000        records per measurement
                  --keys=10000             distinct keys
                  --partitions=4           partitions of every topic
                  --value.bytes=100        value size
                  --run.length=200         consecutive records per key in the queued scenario
                  --queued.rate=1000       per-key rate (records/s) in the queued scenario
                  --scenarios=unqueued,queued
                  --guarantees=exactly_once_v2   (comma-separated; at_least_once also allowed)
                  --warmup.records=1000000 records of each untimed warm-up run (every app, every scenario); 0: none
                  --warmup.rounds=8        most warm-up rounds; an app is warm once its round spent < 5 % of its time
                                           in its JVM's JIT (with --app.jvm=shared: once all apps' round did)
                  --timeout.s=900          per measurement
                  --results.file=target/benchmark-results.txt
                  --state.dir=<dir>        parent of the apps' state directories (default: a temporary one)
                  --streams.<key>=<value>  a Kafka Streams setting for both apps (e.g. --streams.commit.interval.ms=200)
                  --apps=pass-through,shaper   also: pass-through+header (the baseline plus the two headers shaped records carry),
                                           naive-queue (a put and a delete per record in a logged store, all released
                                           every 100 ms: the yardstick the queued target came from),
                                           shaper+batched, shaper+strict (admission on Redis, admitting all),
                                           shaper+pooled-total, shaper+leased-total, shaper+fixed-total (a total
                                           rate far above the load: pooled per instance, leased through Redis, or a
                                           fixed part per partition), shaper+binding-total (a pooled total of
                                           200,000/s, below what the shaper can do: the ceiling binds),
                                           shaper+shadow (shaper.mode=shadow: all pass,
                                           what the rule would hold back reported on a shadow topic)
                  --strict.records=100000  records for shaper+strict (one Redis call per record)
                  --redis.uri=<uri>        Redis for the admission and leased apps (default: a redis-server started
                                           for the run)
                  --repeat=3               runs of every measurement, interleaved; the ratios use the medians
                  --app.jvm=worker         worker: each app type in a JVM of its own (the broker, loader and counter
                                           stay in this one); shared: the apps in this JVM, beside the broker
                  --app.jvm.opts="-Xms2g -Xmx2g -XX:+AlwaysPreTouch"   options of the apps' JVMs
                """;
    }

    /** The apps' JVM options: the given ones, plus this JVM's logging configuration, if it has one. */
    private static List<String> appJvmOptions(String given, Properties systemProperties) {
        List<String> options = new ArrayList<>(Arrays.stream(given.trim().split("\\s+")).filter(o -> !o.isEmpty())
                .toList());
        String logging = systemProperties.getProperty("logback.configurationFile");
        if (logging != null && options.stream().noneMatch(o -> o.startsWith("-Dlogback.configurationFile="))) {
            options.add("-Dlogback.configurationFile=" + logging);
        }
        return options;
    }

    private static String guarantee(String name) {
        String g = name.toLowerCase(Locale.ROOT);
        if (!g.equals(StreamsConfig.EXACTLY_ONCE_V2) && !g.equals(StreamsConfig.AT_LEAST_ONCE)) {
            throw new IllegalArgumentException("guarantee must be " + StreamsConfig.EXACTLY_ONCE_V2 + " or "
                    + StreamsConfig.AT_LEAST_ONCE + ", got \"" + name + "\"");
        }
        return g;
    }

    private static long parseLong(Map<String, String> given, String name, long defaultValue) {
        String raw = given.get(name);
        if (raw == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(raw.replace("_", "").trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, got \"" + raw + "\"");
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
