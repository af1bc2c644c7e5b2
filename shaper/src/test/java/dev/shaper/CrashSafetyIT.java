package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ChildShaperSettings;
import dev.shaper.testsupport.ArrivalLog;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputAssertions;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.ShaperProcesses;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper killed with SIGKILL while records are queued, twice, and restarted each time: no record may be
 * lost, duplicated or reordered, and no second of any key may hold more than rate + 1 records, restarts
 * included.
 *
 * <p>The shaper runs as a child JVM from {@code target/shaper.jar} (built in the package phase, before
 * failsafe runs this), with its state directory in a temporary directory. Its output, and a CSV of every
 * record read back, go to {@code target/crash-safety-it/}.
 *
 * <p>Each restart reuses the killed instance's state directory. Kafka Streams keeps its process id there, and
 * the exactly-once transactional id is made from it, so the new instance's producer fences the killed one's
 * open transaction at once. With a fresh directory the new instance gets a new transactional id, and the
 * killed instance's open transaction holds back every {@code read_committed} reader (and the restore of the
 * changelogs) until the broker times it out: measured, the output stalled 13.9 s instead of 7.5 s.
 *
 * <p>System properties: {@code shaper.crash.guarantee} (default {@code exactly_once_v2}) sets the processing
 * guarantee; with {@code at_least_once} this test is expected to be able to fail (duplicates after a crash),
 * which shows that the verifier can tell. {@code shaper.crash.state=fresh} gives every restart an empty state
 * directory instead. {@code shaper.crash.commit.interval.ms} overrides the commit interval (default: half the
 * tick).
 */
@Order(1) // among the slowest classes: started first in the parallel run
class CrashSafetyIT {

    private static final Logger LOG = LoggerFactory.getLogger(CrashSafetyIT.class);

    private static final String GUARANTEE = System.getProperty("shaper.crash.guarantee",
            StreamsConfig.EXACTLY_ONCE_V2);
    private static final boolean FRESH_STATE = "fresh".equals(System.getProperty("shaper.crash.state", "same"));

    private static final int PARTITIONS = 2;
    private static final int KEYS = 3;
    /** Records per key produced before the first start, and while the first killed instance is down. */
    private static final int FIRST_PER_KEY = 400;
    private static final int SECOND_PER_KEY = 200;
    /** Slow enough that most of the input is still queued at each kill: the run lasts 600 / 50 = 12 s. */
    private static final int RATE = 50;

    /**
     * Half a key's release interval, so that a punctuation running a little late costs no rate while no
     * second holds more than rate + 1 records (see ShapedRateIT); the default commit interval.
     */
    private static final long TICK_MS = 1000 / (2 * RATE);
    private static final long COMMIT_INTERVAL_MS = Long.getLong("shaper.crash.commit.interval.ms", 100);
    /** The stream thread's idle poll; below the tick, so punctuations are not delayed by it. */
    private static final long POLL_MS = 1;

    private static final Path LOG_DIR = Path.of("target", "crash-safety-it");
    private static final Duration AWAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @RegisterExtension
    final ShaperProcesses processes = new ShaperProcesses();

    @Test
    @Timeout(240)
    void shouldAccountForEveryRecordOnceInOrderAtTheRateWhenTheShaperIsKilledTwice(@TempDir Path work)
            throws Exception {
        // Given
        broker.createTopics(PARTITIONS, "crash-in", "crash-rejected");
        // The output topic records when each record reached it: the arrival the rate bounds are about.
        broker.createTopics(PARTITIONS, KafkaBroker.APPEND_TIME, "crash-out");
        Path logFile = LOG_DIR.resolve("shaper-" + GUARANTEE + ".log");
        Files.deleteIfExists(logFile);
        List<RecordId> ids = new ArrayList<>(Workload.interleaved(KEYS, 0, FIRST_PER_KEY));
        List<RecordId> whileDown = Workload.interleaved(KEYS, FIRST_PER_KEY, SECOND_PER_KEY);
        Workload.send(broker.bootstrapServers(), "crash-in", ids, 0);
        LOG.info("guarantee {}, {} state directory per restart, tick {} ms, commit interval {} ms; shaper log: {}",
                GUARANTEE, FRESH_STATE ? "a fresh" : "the same", TICK_MS, COMMIT_INTERVAL_MS,
                logFile.toAbsolutePath());

        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                "crash-out", "crash-rejected")) {
            // When: killed once it has released some of the queues (about 1 s worth), restarted, ...
            start("first", work, logFile);
            awaitOutput(collector, 3 * RATE, "the first instance's output");
            int atFirstKill = killShaper(collector, ids.size());
            Workload.send(broker.bootstrapServers(), "crash-in", whileDown, 0);
            ids.addAll(whileDown);
            // ... killed again once the restarted instance has committed output of its own (about 2 s), ...
            long secondStart = start("second", work, logFile);
            awaitOutput(collector, atFirstKill + 1, "the second instance's first output");
            awaitOutput(collector, atFirstKill + 6 * RATE, "the second instance's output");
            int atSecondKill = killShaper(collector, ids.size());
            // ... and restarted to finish the queues.
            long thirdStart = start("third", work, logFile);
            awaitOutput(collector, atSecondKill + 1, "the third instance's first output");
            collector.awaitAccountedFor(ids, Duration.ofSeconds(120));

            // Then
            List<CollectedRecord> read = collector.snapshot();
            ArrivalLog.write(LOG_DIR.resolve("arrivals-" + GUARANTEE + ".csv"), read);
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            LOG.info("guarantee {}: {} records on {} keys at {}/s per key, killed after {} and {} output records;"
                    + " per key, records in the first second of output after the second start {}, after the"
                    + " third {}\n{}", GUARANTEE, ids.size(), KEYS, RATE, atFirstKill, atSecondKill,
                    firstSecondAfter(read, secondStart), firstSecondAfter(read, thirdStart), report.summary());
            // Whatever the restarts and the commits held back: rate + 1 a second
            ShapedOutputAssertions.assertExactlyOnceInOrderWithin(report,
                    ReleasePace.maxInOneSecond(RATE));
        }
    }

    /** Starts the next shaper instance and returns {@link System#nanoTime()} at its start. */
    private long start(String name, Path work, Path logFile) throws IOException {
        long now = System.nanoTime();
        processes.add(ShaperProcess.start(name, settings(work, processes.size() + 1), logFile));
        return now;
    }

    private ShaperProcess running() {
        return processes.get(processes.size() - 1);
    }

    /** Waits until {@code count} output records have been read, failing at once if the shaper dies. */
    private void awaitOutput(CommittedRecordCollector collector, int count, String what) {
        ShaperProcess running = running();
        long start = System.nanoTime();
        collector.await(what + ": " + count + " output records", AWAIT, records -> {
            if (!running.isAlive()) {
                throw new AssertionError(running + " died on its own; see its log");
            }
            return records.stream().filter(CollectedRecord::isOutput).count() >= count;
        });
        LOG.info("{}: {} output records read after {} ms", what, count, (System.nanoTime() - start) / 1_000_000);
    }

    /** Kills the running shaper with SIGKILL; returns how many output records had been read by then. */
    private int killShaper(CommittedRecordCollector collector, int produced) throws InterruptedException {
        ShaperProcess running = running();
        running.kill();
        int output = collector.outputCount();
        int accounted = collector.snapshot().size();
        LOG.info("killed {} with SIGKILL after {} output records; {} of {} produced records still queued",
                running, output, produced - accounted, produced);
        assertThat(accounted).as("records read back when the shaper was killed").isLessThan(produced);
        return output;
    }

    /**
     * Per key, how many output records arrived in the first second after the key's first output record read
     * after {@code sinceNanos}: a restart that released a catch-up burst would show here.
     */
    private static TreeMap<String, Integer> firstSecondAfter(List<CollectedRecord> read, long sinceNanos) {
        TreeMap<String, Long> first = new TreeMap<>();
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (CollectedRecord r : read) {
            if (r.isOutput() && r.arrivalNanos() >= sinceNanos) {
                long from = first.computeIfAbsent(r.key(), k -> r.arrivalNanos());
                if (r.arrivalNanos() - from < ShapedOutputVerifier.ONE_SECOND.toNanos()) {
                    counts.merge(r.key(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** The settings file of the {@code n}-th start. */
    private static Path settings(Path work, int n) throws IOException {
        Properties p = ChildShaperSettings.queueing("crash-safety-it", broker.bootstrapServers(),
                work.resolve(FRESH_STATE ? "state-" + n : "state"), "crash", RATE, TICK_MS);
        p.setProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, GUARANTEE);
        p.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(COMMIT_INTERVAL_MS));
        p.setProperty(StreamsConfig.POLL_MS_CONFIG, Long.toString(POLL_MS));
        // A killed instance leaves its group member behind; the next one gets the tasks only once the broker
        // has given up on that member, this long after the kill.
        p.setProperty("session.timeout.ms", "6000");
        p.setProperty("heartbeat.interval.ms", "1000");
        return ChildShaperSettings.write(p, work.resolve("shaper-" + n + ".properties"), "CrashSafetyIT, start " + n);
    }
}
