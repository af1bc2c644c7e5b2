package dev.shaper.demo.embedded;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.demo.db.BatchObserver;
import dev.shaper.demo.db.BatchWriter;
import dev.shaper.demo.db.DbWriter;
import dev.shaper.demo.db.JdbcTarget;
import dev.shaper.demo.db.ReleaseWindows;
import dev.shaper.demo.db.ShapedRowsTable;
import dev.shaper.demo.traffic.Bursts;
import dev.shaper.demo.traffic.KafkaRecordSink;
import dev.shaper.demo.traffic.Rates;
import dev.shaper.demo.traffic.Ticker;
import dev.shaper.demo.traffic.TrafficGenerator;
import dev.shaper.demo.traffic.TrafficLimit;
import dev.shaper.demo.traffic.TrafficPattern;
import dev.shaper.demo.traffic.ZipfKeys;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.feedback.FeedbackReporter;
import dev.shaper.internals.metrics.ShaperMetrics;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole story in one process: a Kafka broker, the three topics, the shaper (via
 * {@link ShaperApplication}), a bursty producer, the DB writer and a live console view; at the end a chart
 * and a summary table.
 *
 * <p>Lifecycle: {@link #start} brings everything up and starts producing; {@link #awaitCompletion()} returns
 * once the producer is done and every produced record is either rejected or in the database (or the drain
 * timeout passed, or {@link #close()} was called); {@link #close()} stops producer, shaper, writer and broker
 * in that order, deletes the broker's and the shaper's directories, writes the chart and prints the summary.
 * {@code close()} is idempotent and safe from a shutdown hook, which is how Ctrl-C stops the demo cleanly.
 */
public final class DemoRun implements AutoCloseable {

    public static final String INPUT_TOPIC = "shaper-input";
    public static final String SHAPED_TOPIC = "shaper-shaped";
    public static final String REJECTED_TOPIC = "shaper-rejected";
    /** Where the DB writer reports its writes, with {@link DemoSettings#feedback()}. */
    public static final String FEEDBACK_TOPIC = "shaper-feedback";
    /** The DB writer's id in its reports. */
    public static final String WRITER_ID = "demo-db-writer";
    /** The chart's file name in the output directory. */
    public static final String CHART_FILE = "shaper-demo.html";
    static final int INPUT_PARTITIONS = 2;

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);
    private static final long SAMPLE_INTERVAL_MS = 1000;
    private static final Duration SHAPER_START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration FEEDBACK_INTERVAL = Duration.ofSeconds(1);

    private final DemoSettings settings;
    private final PrintStream console;
    private final String runId = UUID.randomUUID().toString().substring(0, 8);
    private final Path workDir;
    private final RateTimeline timeline = new RateTimeline();
    private final LiveView view;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "shaper-demo-sampler");
        t.setDaemon(true);
        return t;
    });
    private EmbeddedKafka kafka;
    private ShaperApplication shaper;
    private KafkaRecordSink sink;
    private TrafficGenerator generator;
    private Thread producerThread;
    private FeedbackReporter reporter;
    private DbWriter writer;
    private Thread writerThread;
    private TopicMonitor monitor;
    private volatile long producerStartNanos;
    /** The same moment on the wall clock, which the shaper stamps its releases with. */
    private volatile long producerStartEpochMs;
    private volatile long writerStartNanos;
    /** The closed loop's capacity as last read while the shaper ran: what the samples after its close hold. */
    private volatile double lastCapacity = Double.NaN;
    private volatile boolean producerDone;
    private volatile Throwable failure;
    private volatile boolean closing;
    private boolean closed;
    private DemoSummary summary;

    private DemoRun(DemoSettings settings, PrintStream console) throws IOException {
        this.settings = settings;
        this.console = console;
        this.view = new LiveView(console, settings.totalRate(), settings.isAdaptive());
        this.workDir = Files.createTempDirectory("shaper-demo-");
    }

    /** Starts broker, topics, shaper, DB writer and producer; on any failure stops what already runs. */
    public static DemoRun start(DemoSettings settings, PrintStream console) throws Exception {
        DemoRun run = new DemoRun(settings, console);
        try {
            run.startAll();
        } catch (Exception | Error e) {
            run.close();
            throw e;
        }
        return run;
    }

    private void startAll() throws Exception {
        console.println("Starting a Kafka broker (KRaft, in this JVM) ...");
        kafka = EmbeddedKafka.start(workDir.resolve("kafka"));
        kafka.createTopics(INPUT_PARTITIONS, Map.of(), INPUT_TOPIC);
        // Append time on the shaped topic: records that passed the shaper at once carry no release header,
        // and the broker's append time is then the closest clock to their release.
        kafka.createTopics(INPUT_PARTITIONS, EmbeddedKafka.APPEND_TIME, SHAPED_TOPIC);
        kafka.createTopics(1, Map.of(), REJECTED_TOPIC);
        if (settings.feedback()) {
            kafka.createTopics(1, Map.of(), FEEDBACK_TOPIC);
        }

        console.println("Starting the shaper: " + shaperDescription());
        shaper = ShaperApplication.create(shaperSettings());
        shaper.start();
        awaitShaperRunning();
        console.println("The shaper's metrics and health: http://localhost:" + shaper.httpPort()
                + "/metrics, /health/ready, /buckets/{key}");

        BatchObserver observer = BatchObserver.NONE;
        if (settings.feedback()) {
            reporter = FeedbackReporter.start(kafka.bootstrapServers(), FEEDBACK_TOPIC, WRITER_ID, feedbackInterval());
            observer = reporter::recordWrite;
            console.println("The DB writer reports its writes to " + FEEDBACK_TOPIC + " every "
                    + feedbackInterval().toMillis() + " ms as writer " + WRITER_ID);
        }
        if (settings.dbSlowdown() != null) {
            console.println("Injecting a slow database: " + settings.dbSlowdown().describe());
        }
        JdbcTarget db = new JdbcTarget(settings.jdbcUrl(), null, null);
        // The slowdown counts from the batch writer's creation: the summary times the recovery from its end.
        writerStartNanos = System.nanoTime();
        writer = new DbWriter(kafka.bootstrapServers(), SHAPED_TOPIC, "shaper-demo-db-writer", 500,
                new BatchWriter(db.connect(), new ShapedRowsTable(ShapedRowsTable.DEFAULT_NAME, db.dialect()),
                        Clock.systemUTC(), Ticker.SYSTEM, settings.dbSlowdown(), observer));
        writerThread = new Thread(this::runWriter, "shaper-demo-db-writer");
        writerThread.start();
        monitor = new TopicMonitor(kafka.bootstrapServers(), SHAPED_TOPIC, REJECTED_TOPIC);

        sink = new KafkaRecordSink(kafka.bootstrapServers(), INPUT_TOPIC);
        generator = new TrafficGenerator(runId, pattern(), new ZipfKeys(settings.keys(), settings.zipfExponent(),
                new Random()), settings.recordSize(), TrafficLimit.of(settings.duration()), Ticker.SYSTEM);
        console.println("Producing " + pattern().describe() + " over " + settings.keys() + " keys (Zipf "
                + Rates.format(settings.zipfExponent()) + ") for " + TrafficLimit.of(settings.duration())
                + "; run id " + runId);
        view.printHeader();
        producerStartNanos = System.nanoTime();
        producerStartEpochMs = System.currentTimeMillis();
        producerThread = new Thread(this::runProducer, "shaper-demo-producer");
        producerThread.start();
        sampler.scheduleAtFixedRate(this::sample, SAMPLE_INTERVAL_MS, SAMPLE_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Waits until Kafka Streams has joined its group and runs its tasks: traffic produced before that would
     * only queue in the input topic and come out as one burst-shaped backlog.
     */
    private void awaitShaperRunning() throws InterruptedException {
        long deadline = System.nanoTime() + SHAPER_START_TIMEOUT.toNanos();
        while (shaper.streams().state() != KafkaStreams.State.RUNNING) {
            if (!shaper.streams().state().isRunningOrRebalancing() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the shaper did not start within " + SHAPER_START_TIMEOUT.toSeconds()
                        + " s (Kafka Streams state " + shaper.streams().state() + ")");
            }
            Thread.sleep(50);
        }
    }

    /**
     * How often the DB writer reports: once a second, and with the closed loop once per decision, as a decision
     * without a new report changes nothing.
     */
    private Duration feedbackInterval() {
        return settings.isAdaptive() ? settings.adaptive().adjust() : FEEDBACK_INTERVAL;
    }

    private TrafficPattern pattern() {
        return new Bursts(settings.baseRate(), settings.burstSize(), settings.burstEvery().toMillis() / 1000.0, 0);
    }

    /** The tick the shaper picks while keys wait: half the interval between a key's records (its default). */
    long tickMs() {
        return ReleasePace.tickMs(settings.ratePerKey(), 100);
    }

    /**
     * What one second of releases may hold under the total rate: one tick's worth more, as releases go by ticks, and
     * one unit per task, as each task's limiter lets the last record of a tick take it up to one unit ahead.
     */
    long totalRateSecondLimit() {
        // The shaper's promise (docs/capacity.md): 5 % above the capacity while it makes up a stall, one late release
        // of up to twice the tick (at least 100 ms) at once, one unit per task.
        long burstMs = Math.max(2 * tickMs(), 100);
        return (long) Math.floor(settings.totalRate() * (1.05 + burstMs / 1000.0)) + INPUT_PARTITIONS;
    }

    private String shaperDescription() {
        return Rates.format(settings.ratePerKey()) + "/s per key (" + Rates.format(settings.keysRate()) + "/s over "
                + settings.keys() + " keys)" + (settings.isAdaptive() ? ", adaptive capacity "
                + Rates.format(settings.adaptive().minRate()) + "/s to " + Rates.format(settings.totalRate())
                + "/s (" + settings.adaptive().controller() + ", target p99 "
                + settings.adaptive().targetLatency().toMillis() + " ms)"
                : settings.hasTotalRate() ? ", DB capacity " + Rates.format(settings.totalRate()) + "/s (total rate)"
                : "") + ", max delay "
                + settings.maxDelay().toMillis() + " ms, tick " + tickMs() + " ms"
                + (settings.admissionRate() > 0 ? ", admission " + Rates.format(settings.admissionRate())
                + " tokens/s per key" + (settings.redisUri() == null ? " (local buckets)" : " (Redis)") : "");
    }

    private Map<String, String> shaperSettings() {
        Map<String, String> s = new HashMap<>();
        s.put(StreamsConfig.APPLICATION_ID_CONFIG, "shaper-demo");
        s.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        s.put(StreamsConfig.STATE_DIR_CONFIG, workDir.resolve("streams").toString());
        s.put(ShaperConfig.INPUT_TOPIC_CONFIG, INPUT_TOPIC);
        s.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, SHAPED_TOPIC);
        s.put(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED_TOPIC);
        s.put(ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(settings.ratePerKey()));
        if (settings.hasTotalRate()) {
            s.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, Double.toString(settings.totalRate()));
        }
        s.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, Long.toString(settings.maxDelay().toMillis()));
        // The summary and the chart count releases per key and second at the time the shaper released them.
        s.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, "true");
        // Any free port: a fixed one could be taken, and the demo prints where it is.
        s.put(ShaperConfig.HTTP_PORT_CONFIG, "0");
        if (settings.admissionRate() > 0) {
            s.put(ShaperConfig.ADMISSION_RATE_CONFIG, Double.toString(settings.admissionRate()));
        }
        if (settings.redisUri() != null) {
            s.put(ShaperConfig.REDIS_URI_CONFIG, settings.redisUri());
        }
        if (settings.isAdaptive()) {
            DemoSettings.Adaptive loop = settings.adaptive();
            s.put(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true");
            s.put(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, FEEDBACK_TOPIC);
            s.put(ShaperConfig.CAPACITY_MIN_RATE_CONFIG, Double.toString(loop.minRate()));
            s.put(ShaperConfig.CAPACITY_TARGET_LATENCY_MS_CONFIG, Double.toString(loop.targetLatency().toNanos()
                    / 1e6));
            s.put(ShaperConfig.CAPACITY_ADJUST_MS_CONFIG, Long.toString(loop.adjust().toMillis()));
            s.put(ShaperConfig.CAPACITY_CONTROLLER_CONFIG, loop.controller());
        }
        return s;
    }

    private void runProducer() {
        try {
            generator.run(sink);
            sink.flush();
        } catch (RuntimeException e) {
            fail("the producer failed", e);
        } finally {
            producerDone = true;
        }
    }

    private void runWriter() {
        try {
            writer.run();
        } catch (Exception e) {
            fail("the DB writer failed", e);
        }
    }

    private void fail(String what, Throwable e) {
        if (!closing) {
            LOG.error("{}; stopping the demo", what, e);
            failure = new IllegalStateException(what + ": " + e.getMessage(), e);
        }
    }

    private void sample() {
        try {
            Sample s = currentSample();
            timeline.add(s);
            view.show(s);
        } catch (RuntimeException e) {
            fail("sampling failed", e);
        }
    }

    private Sample currentSample() {
        TopicMonitor.Rejections rejected = monitor.rejections();
        return new Sample((System.nanoTime() - producerStartNanos) / 1_000_000, sink.acknowledged(),
                monitor.shaped(), rejected.byReason(), rejected.whileQueued(), writer.stats().rowsInserted(),
                capacity());
    }

    /**
     * The capacity the shaper's closed loop applies now, from its meter; NaN without the closed loop. Once the
     * shaper has closed, the last value read while it ran.
     */
    private double capacity() {
        if (!settings.isAdaptive()) {
            return Double.NaN;
        }
        if (!closing && shaper != null) {
            Gauge gauge = shaper.meterRegistry().find(ShaperMetrics.CAPACITY_RATE).gauge();
            double value = gauge == null ? Double.NaN : gauge.value();
            if (value > 0) {
                lastCapacity = value;
            }
        }
        return lastCapacity;
    }

    /** When the injected slowdown ended, seconds since the producer started; NaN without one. */
    private double slowdownEndSeconds() {
        if (settings.dbSlowdown() == null) {
            return Double.NaN;
        }
        return slowdownStartSeconds() + settings.dbSlowdown().length().toNanos() / 1e9;
    }

    /** When the injected slowdown began, seconds since the producer started (it counts from the writer's start). */
    private double slowdownStartSeconds() {
        return (writerStartNanos - producerStartNanos) / 1e9 + settings.dbSlowdown().start().toNanos() / 1e9;
    }

    /** What the chart draws of the settings: the limits, their bounds, what fixes the axes, the slowdown. */
    private ChartSettings chartSettings() {
        ChartSettings.Slowdown slowdown = null;
        if (settings.dbSlowdown() != null) {
            double from = slowdownStartSeconds();
            double to = slowdownEndSeconds();
            slowdown = new ChartSettings.Slowdown(from, to, String.format(Locale.ROOT, "DB slowdown, %.1f s to %.1f s:"
                    + " each batch %d ms slower", from, to, settings.dbSlowdown().extraDelay().toMillis()));
        }
        return new ChartSettings(settings.ratePerKey(), settings.keys(), settings.totalRate(), totalRateSecondLimit(),
                settings.isAdaptive(), settings.maxDelay().toMillis() / 1000.0, settings.peakInputRate(), slowdown);
    }

    /** Whether every produced record is rejected or written to the database. */
    private boolean drained() {
        Sample s = currentSample();
        return s.queueDepth() == 0 && s.dbRows() + writer.stats().rowsSkipped() >= s.shaped();
    }

    /**
     * Blocks until the producer is done and every produced record is rejected or in the database, the drain
     * timeout has passed since the producer finished, or {@link #close()} began.
     *
     * @return true when everything drained
     */
    public boolean awaitCompletion() throws InterruptedException {
        while (!producerDone && !closing && failure == null) {
            producerThread.join(100);
        }
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        while (!closing && failure == null) {
            if (drained()) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                console.println("The queues did not drain within " + settings.drainTimeout().toSeconds() + " s");
                return false;
            }
            Thread.sleep(100);
        }
        if (failure != null) {
            throw new IllegalStateException(failure.getMessage(), failure);
        }
        return false;
    }

    public String runId() {
        return runId;
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** The samples so far, about one a second: the counters and, with the closed loop, its capacity. */
    public List<Sample> samples() {
        return timeline.samples();
    }

    /** The directory holding the broker's logs and the shaper's state; deleted by {@link #close()}. */
    public Path workDir() {
        return workDir;
    }

    /** The summary, once {@link #close()} has run. */
    public synchronized String summary() {
        return summary == null ? null : summary.format();
    }

    /**
     * Stops producer, shaper, DB writer and broker, in that order (each stage's input stops before the stage),
     * deletes the working directory, writes the chart and prints the summary. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closing = true;
        closed = true;
        boolean drained = producerDone && failure == null && safely(this::drained);
        quietly("producer", () -> {
            if (generator != null) {
                generator.stop();
                producerThread.join(10_000);
                sink.close();
            }
        });
        quietly("shaper", () -> {
            if (shaper != null) {
                shaper.close();
            }
        });
        quietly("sampler", () -> {
            sampler.shutdown();
            sampler.awaitTermination(5, TimeUnit.SECONDS);
            if (monitor != null && writer != null) {
                timeline.add(currentSample());
            }
        });
        ReleaseWindows.Densest densest = new ReleaseWindows.Densest(null, 0);
        int densestOfAllKeys = 0;
        if (writer != null) {
            writer.stop();
            quietly("DB writer", () -> writerThread.join(10_000));
            densest = safely(this::densestKeySecond, densest);
            densestOfAllKeys = safely(this::densestSecondOfAllKeys, 0);
            writer.close();
        }
        // After the writer, before the broker: its last report holds the writer's last batches.
        quietly("feedback reporter", () -> {
            if (reporter != null) {
                reporter.close();
            }
        });
        quietly("monitor", () -> {
            if (monitor != null) {
                monitor.close();
            }
        });
        quietly("broker", () -> {
            if (kafka != null) {
                kafka.close();
            }
        });
        quietly("working directory", () -> Utils.delete(workDir.toFile()));
        report(densest, new DemoSummary.AllKeysSecond(settings.totalRate(), totalRateSecondLimit(), densestOfAllKeys),
                !drained);
    }

    private ReleaseWindows.Densest densestKeySecond() throws Exception {
        JdbcTarget db = new JdbcTarget(settings.jdbcUrl(), null, null);
        try (Connection c = db.connect()) {
            return ReleaseWindows.densest(c, new ShapedRowsTable(ShapedRowsTable.DEFAULT_NAME, db.dialect()), runId,
                    1000);
        }
    }

    private int densestSecondOfAllKeys() throws Exception {
        JdbcTarget db = new JdbcTarget(settings.jdbcUrl(), null, null);
        try (Connection c = db.connect()) {
            return ReleaseWindows.densestOfAllKeys(c, new ShapedRowsTable(ShapedRowsTable.DEFAULT_NAME, db.dialect()),
                    runId, 1000);
        }
    }

    private void report(ReleaseWindows.Densest densest, DemoSummary.AllKeysSecond allKeys, boolean stoppedEarly) {
        Sample last = timeline.last();
        if (last == null || writer == null) {
            return;
        }
        int seconds = (int) Math.ceil(last.elapsedMs() / 1000.0);
        ChartSeries series = new ChartSeries(timeline.rates(), monitor == null ? new long[0]
                : safely(() -> monitor.releasedPerSecond(producerStartEpochMs, seconds), new long[0]),
                timeline.backlog());
        summary = new DemoSummary(pattern().describe() + ", " + settings.keys() + " keys; shaper "
                + shaperDescription(), last, timeline, writer.stats(), densest,
                (long) Math.floor(settings.ratePerKey()) + 1, allKeys, stoppedEarly,
                settings.isAdaptive() ? CapacityCourse.of(timeline.samples(), settings.totalRate(),
                        slowdownEndSeconds()) : null, settings.dbSlowdown() != null, series.releasedPeak());
        String table = summary.format();
        console.println();
        console.print(table);
        quietly("chart", () -> {
            Files.createDirectories(settings.outputDir());
            Path chart = settings.outputDir().resolve(CHART_FILE);
            Files.writeString(chart, HtmlChart.render("Shaper demo, run " + runId, series, chartSettings(),
                    summary.rows()), StandardCharsets.UTF_8);
            console.println("chart: " + chart.toAbsolutePath());
        });
    }

    /** An action of the shutdown sequence: a failure is logged and the sequence goes on. */
    private interface Step {
        void run() throws Exception;
    }

    private void quietly(String what, Step step) {
        try {
            step.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while stopping the {}", what);
        } catch (Exception e) {
            LOG.warn("could not stop the {} cleanly: {}", what, e.toString());
        }
    }

    private interface Check<T> {
        T get() throws Exception;
    }

    private <T> T safely(Check<T> check, T fallback) {
        try {
            return check.get();
        } catch (Exception e) {
            LOG.warn("could not read the final figures: {}", e.toString());
            return fallback;
        }
    }

    private boolean safely(Check<Boolean> check) {
        return safely(check, false);
    }
}
