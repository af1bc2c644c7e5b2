package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.demo.db.DbSlowdown;
import dev.shaper.feedback.FeedbackReport;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.VerificationReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The demo end to end, in short runs of bursts far above the shaper's rate: the database never received more than
 * rate + 1 rows of a key in any second, nor, with a total rate, more than the shaper promises of all keys together
 * (docs/capacity.md); and every produced id is in the database or in the rejected topic, exactly once.
 *
 * <p>Which clock: the rows' {@code released_ms}, the time the shaper released each record (its
 * {@code shaper.released.ms} header, or the broker's append time for records that passed at once). That is
 * the moment the load entered the path to the database, and the shaper's guarantee is stated on it. The
 * rows' write time adds what the shaper does not control and the database is not harmed by: a
 * {@code read_committed} consumer sees a transaction's records at once when it commits (every 100 ms), and
 * the writer turns each poll into one batch, so by write time a second can hold a commit interval's worth
 * more. That figure is logged, not asserted.
 */
@Execution(ExecutionMode.CONCURRENT) // each run has a broker, a database and a directory of its own
@Order(1) // the slowest class: started first in the parallel run
class DemoIT {

    private static final double RATE_PER_KEY = 20;

    @TempDir
    Path output;

    @Test
    void shouldProtectTheDatabaseAndAccountForEveryRecord() throws Exception {
        // Given: bursts of 150 every 3 s over 40/s background, 4 keys at 20/s each (80/s together), no total rate
        DemoSettings settings = settings(Duration.ofSeconds(10), 0, null, false);

        // When: the demo runs to the end
        Outcome outcome = runToTheEnd(settings);

        // Then: every id once, in the database or rejected; the database protected by release time
        VerificationReport report = outcome.report();
        assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
        assertThat(outcome.rows()).as("rows written").isNotEmpty();
        assertThat(report.rejectedCount()).as("bursts beyond the delay bound are rejected").isPositive();
        assertThat(report.keys().values()).allSatisfy(k -> assertThat(k.timeBasis()).isEqualTo("release time"));
        assertThat(report.keys().values()).as(report.summary())
                .allSatisfy(k -> assertThat(k.maxInWindow()).isLessThanOrEqualTo((int) RATE_PER_KEY + 1));
        // And: the summary and the chart, and nothing left behind
        assertThat(outcome.console()).contains("densest key-second", "database rows", "no cap (--total-rate 0)");
        assertThat(Files.readString(output.resolve(DemoRun.CHART_FILE))).contains("<svg", "<polyline")
                .doesNotContain("DB capacity");
        assertThat(outcome.workDir()).doesNotExist();
    }

    @Test
    void shouldHoldTheDatabaseToTheTotalRateWhenOneIsSet() throws Exception {
        // Given: the same bursts (90/s offered on average), 4 keys at 20/s, and a database of 40/s whose writer
        // reports to the shaper, each batch 5 ms slower
        double totalRate = 40;
        DemoSettings settings = settings(Duration.ofSeconds(8), totalRate,
                new DbSlowdown(Duration.ZERO, Duration.ofMinutes(1), Duration.ofMillis(5)), true);

        // When
        Outcome outcome = runToTheEnd(settings);

        // Then: every id once, in the database or rejected
        VerificationReport report = outcome.report();
        assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
        // And: by release time, no second of all keys together holds more than the capacity allows, and the
        // capacity bound: the keys' own rates would have let 80/s through
        long[] releasedMs = outcome.rows().stream().mapToLong(CollectedRecord::releasedAtMs).sorted().toArray();
        int densest = ArrivalStats.maxInWindow(Arrays.stream(releasedMs).map(ms -> ms * 1_000_000L).toArray(),
                1_000_000_000L);
        assertWithinCapacity(releasedMs, totalRate);
        assertThat(densest).as("the densest second").isGreaterThanOrEqualTo((int) (totalRate * 0.75));
        // And: the summary prints the capacity and that second, the chart draws the capacity
        assertThat(outcome.console()).contains("40/s, the shaper's total rate")
                .containsPattern("densest second +" + densest + " rows of all keys");
        assertThat(Files.readString(output.resolve(DemoRun.CHART_FILE))).contains("DB capacity (40/s)");
        // And: the writer's reports so far, keyed by it, count no more than the rows, each batch's 5 ms included
        assertThat(outcome.reports()).isNotEmpty()
                .allSatisfy(r -> assertThat(r.writerId()).isEqualTo(DemoRun.WRITER_ID));
        assertThat(outcome.reports().stream().mapToLong(r -> r.report().writes()).sum())
                .isPositive().isLessThanOrEqualTo(outcome.rows().size());
        assertThat(outcome.reports()).filteredOn(r -> r.report().writes() > 0)
                .allSatisfy(r -> assertThat(r.report().latencyP99Ms()).isGreaterThanOrEqualTo(5.0));
    }

    @Test
    void shouldLowerTheCapacityWhileTheDatabaseIsSlowAndRaiseItAfterWhenTheLoopIsClosed() throws Exception {
        // Given: a closed loop between 30/s and 60/s (AIMD, a decision every 500 ms, a target p99 of 60 ms) over the
        // same bursts, and a database whose batches take 120 ms longer from 8 s to 16 s after the writer started.
        // The target and the slowdown are far apart so that a collector pause on a loaded machine does not pass
        // for a slow database; the minimum is half the maximum so the way back up is short enough to see.
        double max = 60;
        double min = 30;
        DemoSettings settings = adaptiveSettings(Duration.ofSeconds(30), max,
                new DbSlowdown(Duration.ofSeconds(8), Duration.ofSeconds(8), Duration.ofMillis(120)),
                new DemoSettings.Adaptive(min, Duration.ofMillis(60), "aimd", Duration.ofMillis(500)));

        // When
        Outcome outcome = runToTheEnd(settings);

        // Then: no record lost, every id once in the database or rejected
        VerificationReport report = outcome.report();
        assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
        // And: the capacity, sampled every second since the producer started (the writer started up to a second
        // before it), fell by at least 30 % while the database was slow and never left [min, max]
        List<Sample> samples = outcome.samples().stream().filter(Sample::hasCapacity).toList();
        assertThat(samples).isNotEmpty().allSatisfy(s -> assertThat(s.capacity()).isBetween(min, max));
        double lowestWhileSlow = samples.stream().filter(s -> s.elapsedMs() >= 8_000 && s.elapsedMs() <= 18_000)
                .mapToDouble(Sample::capacity).min().orElseThrow();
        assertThat(lowestWhileSlow).as("the lowest capacity from 8 s to 18 s").isLessThanOrEqualTo(0.7 * max);
        // And: after the slowdown it rose at least half way back to the maximum
        double highestAfter = samples.stream().filter(s -> s.elapsedMs() > 18_000).mapToDouble(Sample::capacity).max()
                .orElseThrow();
        assertThat(highestAfter).as("the highest capacity after 18 s")
                .isGreaterThanOrEqualTo(lowestWhileSlow + (max - lowestWhileSlow) / 2);
        // And: the summary and the chart tell it
        assertThat(outcome.console()).containsPattern("lowest capacity +\\d").contains("capacity recovered",
                "accounted for       every record");
        assertThat(Files.readString(output.resolve(DemoRun.CHART_FILE))).contains(HtmlChart.ADAPTIVE_LABEL,
                "DB capacity (60/s)");
    }

    /**
     * Asserts that no second of releases, all keys together, holds more than the shaper promises (docs/capacity.md):
     * the capacity plus one record (the demo runs one instance).
     */
    private static void assertWithinCapacity(long[] releasedMs, double capacity) {
        long limit = (long) Math.floor(capacity) + 1;
        int end = 0;
        for (int start = 0; start < releasedMs.length; start++) {
            while (end < releasedMs.length && releasedMs[end] - releasedMs[start] < 1_000) {
                end++;
            }
            assertThat((long) (end - start)).as("releases in the second from %d ms", releasedMs[start])
                    .isLessThanOrEqualTo(limit);
        }
    }

    /** Bursts of 150 every 3 s over 40/s background, 4 keys at 20/s each, a 2 s bound on the wait. */
    private DemoSettings settings(Duration duration, double totalRate, DbSlowdown dbSlowdown, boolean feedback) {
        String jdbcUrl = "jdbc:h2:mem:demo-it-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        return new DemoSettings(duration, RATE_PER_KEY, totalRate, 4, 1.0, 40, 150, Duration.ofSeconds(3), 80,
                Duration.ofSeconds(2), 0, null, jdbcUrl, dbSlowdown, feedback, output, Duration.ofSeconds(30));
    }

    /** {@link #settings} with a closed loop between {@code adaptive}'s minimum and {@code totalRate}. */
    private DemoSettings adaptiveSettings(Duration duration, double totalRate, DbSlowdown dbSlowdown,
                                          DemoSettings.Adaptive adaptive) {
        DemoSettings s = settings(duration, totalRate, dbSlowdown, true);
        return new DemoSettings(s.duration(), s.ratePerKey(), s.totalRate(), s.keys(), s.zipfExponent(), s.baseRate(),
                s.burstSize(), s.burstEvery(), s.recordSize(), s.maxDelay(), s.admissionRate(), s.redisUri(),
                s.jdbcUrl(), s.dbSlowdown(), s.feedback(), s.outputDir(), s.drainTimeout(), adaptive);
    }

    /** One report on the feedback topic and the writer it is keyed by. */
    private record KeyedReport(String writerId, FeedbackReport report) {
    }

    /**
     * What a demo run left behind.
     *
     * @param console what it printed
     * @param rows    the database's rows, as records read from the output with their release time
     * @param report  every produced id against the rows and the rejected records
     * @param workDir the broker's and the shaper's directory (gone once the demo closed)
     * @param reports the DB writer's reports on the feedback topic before the demo closed (none without feedback)
     * @param samples the demo's samples, about one a second
     */
    private record Outcome(String console, List<CollectedRecord> rows, VerificationReport report, Path workDir,
                           List<KeyedReport> reports, List<Sample> samples) {
    }

    /** Runs the demo until everything drained and closes it; reads what it produced, rejected and wrote. */
    private static Outcome runToTheEnd(DemoSettings settings) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        List<RecordId> produced;
        List<CollectedRecord> rejected;
        List<KeyedReport> reports = List.of();
        Path workDir;
        DemoRun closed;
        try (DemoRun run = DemoRun.start(settings, new PrintStream(console, true, StandardCharsets.UTF_8))) {
            workDir = run.workDir();
            closed = run;
            assertThat(run.awaitCompletion()).as("drained; console:%n%s", console).isTrue();
            produced = inputIds(run.bootstrapServers());
            rejected = rejectedRecords(run.bootstrapServers(), produced.size());
            if (settings.feedback()) {
                reports = feedbackReports(run.bootstrapServers());
            }
        }
        List<CollectedRecord> rows = databaseRows(settings.jdbcUrl());
        List<CollectedRecord> all = new ArrayList<>(rows);
        all.addAll(rejected);
        VerificationReport report = ShapedOutputVerifier.verify(produced, all);
        System.out.println(console.toString(StandardCharsets.UTF_8));
        System.out.println(report.summary());
        return new Outcome(console.toString(StandardCharsets.UTF_8), rows, report, workDir, reports,
                closed.samples());
    }

    /** The reports on the feedback topic so far. */
    private static List<KeyedReport> feedbackReports(String bootstrapServers) throws Exception {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(DemoRun.FEEDBACK_TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<KeyedReport> reports = new ArrayList<>();
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    reports.add(new KeyedReport(r.key(), FeedbackReport.parse(r.value())));
                }
            }
            return reports;
        }
    }

    /** Every id on the input topic: what the producer got acknowledged. */
    private static List<RecordId> inputIds(String bootstrapServers) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(DemoRun.INPUT_TOPIC).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<RecordId> ids = new ArrayList<>();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    ids.add(RecordId.parse(r.value()));
                }
            }
            return ids;
        }
    }

    /**
     * Everything on the rejected topic. The demo has drained, so the shaped and rejected topics together hold
     * one record per produced one; reading until that many keeps this from missing any.
     */
    private static List<CollectedRecord> rejectedRecords(String bootstrapServers, int produced) {
        try (CommittedRecordCollector collector = CommittedRecordCollector.start(bootstrapServers,
                DemoRun.SHAPED_TOPIC, DemoRun.REJECTED_TOPIC)) {
            collector.await("the demo's output read back", Duration.ofSeconds(30),
                    records -> records.size() >= produced);
            return collector.snapshot().stream().filter(r -> !r.isOutput()).toList();
        }
    }

    /** The database's rows as records read from the output, with their release time. */
    private static List<CollectedRecord> databaseRows(String jdbcUrl) throws Exception {
        List<CollectedRecord> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl);
             PreparedStatement select = c.prepareStatement("SELECT record_key, record_id, released_ms FROM shaped_rows"
                     + " ORDER BY record_key, released_ms")) {
            try (ResultSet r = select.executeQuery()) {
                while (r.next()) {
                    RecordId id = RecordId.parse(r.getString(2).getBytes(StandardCharsets.UTF_8));
                    long released = r.getLong(3);
                    rows.add(new CollectedRecord(CollectedRecord.Topic.OUTPUT, r.getString(1), id, 0, null,
                            r.wasNull() ? null : released, null, null, null, null));
                }
            }
        }
        return rows;
    }

}
