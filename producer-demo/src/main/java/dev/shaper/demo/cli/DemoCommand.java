package dev.shaper.demo.cli;

import dev.shaper.demo.db.DbSlowdown;
import dev.shaper.demo.db.JdbcTarget;
import dev.shaper.demo.embedded.DemoRun;
import dev.shaper.demo.embedded.DemoSettings;
import dev.shaper.demo.traffic.Rates;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code demo}: the whole story on this machine, with nothing installed but Java. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a Kafka broker in this JVM, the shaper, a bursty producer and the DB writer into an"
                + " embedded database; show the rates live, then print a summary and write an HTML chart."
                + " Ctrl-C stops everything cleanly.")
public final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", converter = OptionConverters.PositiveDuration.class,
            description = "how long the producer runs (default: 30s; 45s with --adaptive, long enough for the capacity"
                    + " to come back after a slowdown)")
    Duration duration;

    @Option(names = "--rate", defaultValue = "20", converter = OptionConverters.PositiveDouble.class,
            description = "the shaper's release rate per key, records/s (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--total-rate", defaultValue = "0", converter = OptionConverters.NonNegativeDouble.class,
            description = "the database's capacity: the shaper's shaper.shaping.total.rate, records/s over all keys"
                    + " together, drawn on the chart; 0 = no cap (default: ${DEFAULT-VALUE})")
    double totalRate;

    @Option(names = "--keys", defaultValue = "5", converter = OptionConverters.PositiveInt.class,
            description = "number of distinct keys (default: ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--zipf", defaultValue = "1.0", converter = OptionConverters.NonNegativeDouble.class,
            description = "Zipf exponent of the key popularity, 0 = uniform (default: ${DEFAULT-VALUE})")
    double zipf;

    @Option(names = "--base-rate", defaultValue = "40", converter = OptionConverters.NonNegativeDouble.class,
            description = "the producer's background rate between bursts, records/s (default: ${DEFAULT-VALUE})")
    double baseRate;

    @Option(names = "--burst-size", defaultValue = "300", converter = OptionConverters.PositiveInt.class,
            description = "records per burst (default: ${DEFAULT-VALUE})")
    int burstSize;

    @Option(names = "--burst-every", defaultValue = "5s", converter = OptionConverters.PositiveDuration.class,
            description = "time between bursts (default: ${DEFAULT-VALUE})")
    Duration burstEvery;

    @Option(names = "--record-size", defaultValue = "100", converter = OptionConverters.PositiveInt.class,
            description = "bytes per record value (default: ${DEFAULT-VALUE})")
    int recordSize;

    @Option(names = "--max-delay", defaultValue = "3s", converter = OptionConverters.NonNegativeDuration.class,
            description = "longest wait in the shaper; later records are rejected DELAY_EXCEEDED"
                    + " (default: ${DEFAULT-VALUE})")
    Duration maxDelay;

    @Option(names = "--admission-rate", defaultValue = "0", converter = OptionConverters.NonNegativeDouble.class,
            description = "admission tokens/s per key, 0 = no admission stage; beyond it records are rejected"
                    + " RATE_LIMITED (default: ${DEFAULT-VALUE})")
    double admissionRate;

    @Option(names = "--redis-uri", description = "Redis for shared admission counters, redis://host:port, or a"
            + " Redis Cluster, redis-cluster://host:port[,host:port...] (default: none, local token buckets)")
    String redisUri;

    @Option(names = "--jdbc-url", defaultValue = "jdbc:h2:mem:shaper-demo;DB_CLOSE_DELAY=-1",
            description = "database the DB writer fills (default: ${DEFAULT-VALUE}, in memory)")
    String jdbcUrl;

    @Option(names = "--db-slowdown", paramLabel = "START+LENGTH:DELAY",
            converter = OptionConverters.DbSlowdownSpec.class,
            description = "fault injection: from START after the DB writer starts, for LENGTH, each database batch"
                    + " takes DELAY longer, e.g. 10s+10s:50ms (default: none)")
    DbSlowdown dbSlowdown;

    @Option(names = "--feedback",
            description = "the DB writer reports its writes to the topic " + DemoRun.FEEDBACK_TOPIC + " once a"
                    + " second, as a writer with --feedback-topic does (default: off)")
    boolean feedback;

    @Option(names = "--adaptive",
            description = "close the loop: the shaper's capacity follows the DB writer's reports (implies --feedback),"
                    + " between --min-rate and --total-rate, which --adaptive needs (default: off, a fixed capacity)")
    boolean adaptive;

    @Option(names = "--min-rate", converter = OptionConverters.PositiveDouble.class,
            description = "with --adaptive: the lowest the capacity falls to, records/s (default: a fifth of"
                    + " --total-rate)")
    Double minRate;

    @Option(names = "--target-latency", converter = OptionConverters.PositiveDuration.class,
            description = "with --adaptive: the DB writer's p99 batch latency above which the capacity falls"
                    + " (default: " + DEFAULT_TARGET_LATENCY_MS + "ms)")
    Duration targetLatency;

    @Option(names = "--controller", paramLabel = "aimd|gradient",
            description = "with --adaptive: how the capacity moves, aimd (down 30 %% per decision, up a twentieth of"
                    + " --total-rate per second) or gradient (in proportion to the p99's distance from the target)"
                    + " (default: aimd)")
    Controller controller;

    /** The closed loop's controllers, as {@code shaper.capacity.controller} names them. */
    enum Controller {
        aimd, gradient
    }

    @Option(names = "--output-dir", defaultValue = DEFAULT_OUTPUT_DIR,
            description = "directory for the chart " + DemoRun.CHART_FILE + ", created if missing (default:"
                    + " ${DEFAULT-VALUE}, under the current directory)")
    Path outputDir;

    @Option(names = "--drain-timeout", defaultValue = "30s", converter = OptionConverters.PositiveDuration.class,
            description = "how long to wait, after producing, for the queues to empty (default: ${DEFAULT-VALUE})")
    Duration drainTimeout;

    /**
     * The target latency without {@code --target-latency}. The demo's in-memory database writes a batch in a few
     * milliseconds (measured on a shared 2-core machine: p50 5.5 ms, p95 24 ms), but the writer's p99 over half a
     * second is about its slowest batch, and a collector pause or a busy CPU makes one take 30 to 50 ms now and then:
     * 40 ms lets most of those pass, while a batch with the 50 ms of {@code --db-slowdown 10s+10s:50ms} is over it
     * however fast the database is otherwise.
     */
    static final long DEFAULT_TARGET_LATENCY_MS = 40;
    /** Where the chart goes without {@code --output-dir}: under target/, which the build and .gitignore own. */
    static final String DEFAULT_OUTPUT_DIR = "target/demo";
    /** How long the producer runs without {@code --duration}. */
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    /**
     * How long the producer runs with {@code --adaptive} and without {@code --duration}: the README's adaptive run
     * ({@code --db-slowdown 10s+10s:50ms}) needs about 36 s for the capacity to fall and come back within 5 % of its
     * maximum (recovered at 36 s, measured 2026-11-28); 30 s ended with it on the way back up. The rest is a margin
     * for a loaded machine.
     */
    static final Duration ADAPTIVE_DEFAULT_DURATION = Duration.ofSeconds(45);
    /** The closed loop's decision interval in the demo, and the writer's report interval with it. */
    static final Duration ADJUST = Duration.ofMillis(500);

    @Override
    public Integer call() throws Exception {
        DemoSettings settings = settings();
        PrintStream console = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        DemoRun run = DemoRun.start(settings, console);
        // The close runs inside the signal's scope, as in the other commands: a Ctrl-C during it (stopping the
        // broker takes seconds) then waits for it instead of ending the JVM halfway, its directory left behind.
        try (StopOnSignal signal = new StopOnSignal("demo", run::close)) {
            try {
                run.awaitCompletion();
            } finally {
                run.close();
            }
        }
        return 0;
    }

    /** The demo's settings from the options, checked against each other; a usage error names the bad one. */
    DemoSettings settings() {
        Checks.option(spec, "--jdbc-url", () -> new JdbcTarget(jdbcUrl, null, null));
        if (redisUri != null && !redisUri.matches("rediss?(-cluster)?://.+")) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Invalid value for option"
                    + " '--redis-uri': expected redis://host:port or rediss://host:port, or a Redis Cluster's"
                    + " redis-cluster://host:port[,host:port...], got '" + redisUri + "'");
        }
        Duration producing = duration != null ? duration : adaptive ? ADAPTIVE_DEFAULT_DURATION : DEFAULT_DURATION;
        return new DemoSettings(producing, rate, totalRate, keys, zipf, baseRate, burstSize, burstEvery, recordSize,
                maxDelay, admissionRate, redisUri, jdbcUrl, dbSlowdown, feedback || adaptive, outputDir, drainTimeout,
                adaptive());
    }

    /** The closed loop from {@code --adaptive} and its options, or null without it; refuses what does not fit. */
    private DemoSettings.Adaptive adaptive() {
        if (!adaptive) {
            for (String option : new String[] {"--min-rate", "--target-latency", "--controller"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Option '" + option
                            + "' applies only with '--adaptive'");
                }
            }
            return null;
        }
        if (totalRate <= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Option '--adaptive' needs"
                    + " '--total-rate' > 0: the capacity's maximum, which the closed loop moves below");
        }
        double min = minRate == null ? totalRate / 5 : minRate;
        if (min > totalRate) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Invalid value for option"
                    + " '--min-rate': expected at most '--total-rate' " + Rates.format(totalRate) + ", got '"
                    + Rates.format(min) + "'");
        }
        return new DemoSettings.Adaptive(min, targetLatency == null ? Duration.ofMillis(DEFAULT_TARGET_LATENCY_MS)
                : targetLatency, (controller == null ? Controller.aimd : controller).name(), ADJUST);
    }
}
