package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ChildShaperSettings;
import dev.shaper.testsupport.ArrivalLog;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputAssertions;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker goes down for {@link #DOWNTIME} while the shaper holds records in its queues, and comes back on the
 * same port with its logs. Proves that the shaper rides the outage out on its own: the same process, never
 * restarted, is RUNNING and ready afterwards, Kafka Streams never reached ERROR, and every record comes out
 * exactly once, each key in order, at most rate + 1 records of a key in any second of release time.
 *
 * <p>Also that {@code /health/live} answers 200 throughout the outage (an orchestrator must not restart the
 * shaper for a broker outage); {@code /health/ready} is sampled and logged, not asserted.
 *
 * <p>The outage (12 s between the end of the stop and the start) is longer than Kafka Streams' transaction
 * timeout under exactly-once (10 s). The broker runs in this JVM (only that one can be restarted, see
 * {@link KafkaBroker#stopBroker()}): a clean shutdown of the broker, the KRaft controller of the node staying
 * up; the shaper is a child JVM from {@code target/shaper.jar}. Its log, and a CSV of every record read back, go
 * to {@code target/broker-restart-it/}. {@code -Dshaper.broker.downtime.ms} changes the outage.
 */
@Order(2) // among the slowest classes: started first in the parallel run
class BrokerRestartIT {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerRestartIT.class);

    private static final Duration DOWNTIME = Duration.ofMillis(Long.getLong("shaper.broker.downtime.ms", 12_000));
    private static final int PARTITIONS = 2;
    private static final int KEYS = 3;
    private static final int PER_KEY = 500;
    /** 500 records per key at 50/s: a queue of 10 s, most of it still queued when the broker stops. */
    private static final int RATE = 50;

    private static final long TICK_MS = 1000 / (2 * RATE);
    private static final Path LOG_DIR = Path.of("target", "broker-restart-it");
    private static final Duration AWAIT = Duration.ofSeconds(60);
    private static final long SAMPLE_NANOS = 100_000_000L;
    private static final Pattern STATE_CHANGE = Pattern.compile("Kafka Streams state (\\w+) -> (\\w+)");

    @Test
    @Timeout(240)
    void shouldRideOutABrokerRestartWithRecordsQueuedEveryRecordOnceInOrderAtTheRate(@TempDir Path work)
            throws Exception {
        try (KafkaBroker broker = KafkaBroker.startEmbedded()) {
            // Given: a running shaper with records queued
            broker.createTopics(PARTITIONS, "restart-in", "restart-rejected");
            broker.createTopics(PARTITIONS, KafkaBroker.APPEND_TIME, "restart-out");
            List<RecordId> ids = Workload.interleaved(KEYS, 0, PER_KEY);
            Workload.send(broker.bootstrapServers(), "restart-in", ids, 0);
            Path logFile = LOG_DIR.resolve("shaper.log");
            Files.deleteIfExists(logFile);
            int port = FreePort.find();
            try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                    "restart-out", "restart-rejected");
                 ShaperProcess shaper = ShaperProcess.start("shaper", settings(work, broker.bootstrapServers()),
                         logFile, port)) {
                collector.await("about a second of output", AWAIT, read -> {
                    assertAlive(shaper);
                    return read.stream().filter(CollectedRecord::isOutput).count() >= KEYS * RATE;
                });

                // When: the broker stops, stays down, and starts again
                long stopping = System.nanoTime();
                broker.stopBroker();
                long stoppedAtMs = System.currentTimeMillis();
                long stopMs = (System.nanoTime() - stopping) / 1_000_000;
                int readAtStop = collector.snapshot().size();
                TreeMap<Integer, Integer> liveDuring = new TreeMap<>();
                TreeMap<Integer, Integer> readyDuring = new TreeMap<>();
                sampleHealth(port, shaper, DOWNTIME, liveDuring, readyDuring);
                long starting = System.nanoTime();
                broker.startBroker("restart-in", "restart-out", "restart-rejected");
                long startedAtMs = System.currentTimeMillis();
                long startedNanos = System.nanoTime();
                long startMs = (startedNanos - starting) / 1_000_000;
                LOG.info("broker stopped in {} ms with {} of {} records read back, down {} ms, started again in {} ms",
                        stopMs, readAtStop, ids.size(), startedAtMs - stoppedAtMs, startMs);
                assertThat(readAtStop).as("records read back when the broker stopped").isLessThan(ids.size() / 2);

                // Then: the same process is ready and shapes on, every record once, in order, at the rate
                Await.until(() -> "ready after the restart: " + Http.get(port, "/health/ready"), AWAIT,
                        () -> Http.get(port, "/health/ready").status() == 200);
                long readyMs = (System.nanoTime() - startedNanos) / 1_000_000;
                collector.await("output released after the restart", AWAIT, read -> {
                    assertAlive(shaper);
                    return read.stream().anyMatch(r -> r.isOutput() && r.releasedAtMs() != null
                            && r.releasedAtMs() >= startedAtMs);
                });
                long firstReadMs = (System.nanoTime() - startedNanos) / 1_000_000;
                Await.until(() -> collector.accountedFor(ids) + " of " + ids.size() + " ids read back; " + shaper,
                        AWAIT, () -> {
                            assertAlive(shaper);
                            return collector.accountedFor(ids) == ids.size();
                        });

                List<CollectedRecord> read = collector.snapshot();
                ArrivalLog.write(LOG_DIR.resolve("arrivals.csv"), read);
                VerificationReport report = ShapedOutputVerifier.verify(ids, read);
                String shaperLog = Files.readString(logFile, StandardCharsets.UTF_8);
                List<String> states = stateChanges(shaperLog);
                long firstReleaseMs = read.stream().filter(r -> r.isOutput() && r.releasedAtMs() != null
                        && r.releasedAtMs() >= startedAtMs).mapToLong(CollectedRecord::releasedAtMs).min()
                        .orElseThrow() - startedAtMs;
                LOG.info("{} records on {} keys at {}/s per key; broker down {} ms; after its start: first release"
                        + " {} ms, first record read {} ms, ready {} ms; during the"
                        + " outage /health/live answered {}, /health/ready {} (status: samples); Kafka Streams states:"
                        + " {}\n{}", ids.size(), KEYS, RATE, startedAtMs - stoppedAtMs, firstReleaseMs, firstReadMs,
                        readyMs, liveDuring, readyDuring, states, report.summary());
                assertThat(shaper.isAlive()).as("the shaper process, never restarted").isTrue();
                assertThat(liveDuring.keySet()).as("/health/live during the outage: an orchestrator must not restart"
                        + " the shaper for it").containsExactly(200);
                assertThat(shaperLog).as("the shaper's log").doesNotContain("Kafka Streams failed");
                assertThat(states).as("Kafka Streams state changes")
                        .noneMatch(s -> s.endsWith("ERROR") || s.endsWith("NOT_RUNNING") || s.endsWith("PENDING_SHUTDOWN"))
                        .last().isEqualTo("REBALANCING -> RUNNING");
                // Whatever the broker's absence and the commits held back: rate + 1 a second
                ShapedOutputAssertions.assertExactlyOnceInOrderWithin(report,
                        ReleasePace.maxInOneSecond(RATE));
            }
        }
    }

    /**
     * Asks {@code /health/live} and {@code /health/ready} every 100 ms for {@code outage}, counting the answers
     * by status: the outage's length is the scenario, and the shaper is watched throughout.
     */
    private static void sampleHealth(int port, ShaperProcess shaper, Duration outage, Map<Integer, Integer> live,
                                     Map<Integer, Integer> ready) {
        long end = System.nanoTime() + outage.toNanos();
        while (System.nanoTime() < end) {
            assertAlive(shaper);
            live.merge(Http.get(port, "/health/live").status(), 1, Integer::sum);
            ready.merge(Http.get(port, "/health/ready").status(), 1, Integer::sum);
            LockSupport.parkNanos(Math.min(SAMPLE_NANOS, Math.max(0, end - System.nanoTime())));
        }
    }

    private static void assertAlive(ShaperProcess shaper) {
        if (!shaper.isAlive()) {
            throw new AssertionError(shaper + " died on its own; see " + LOG_DIR.resolve("shaper.log"));
        }
    }

    /** The Kafka Streams state changes the shaper logged, in order, as "FROM -> TO". */
    private static List<String> stateChanges(String log) {
        Matcher m = STATE_CHANGE.matcher(log);
        java.util.ArrayList<String> changes = new java.util.ArrayList<>();
        while (m.find()) {
            changes.add(m.group(1) + " -> " + m.group(2));
        }
        return changes;
    }

    private static Path settings(Path work, String bootstrapServers) throws IOException {
        Properties p = ChildShaperSettings.queueing("broker-restart-it", bootstrapServers, work.resolve("state"),
                "restart", RATE, TICK_MS);
        return ChildShaperSettings.write(p, work.resolve("shaper.properties"), "BrokerRestartIT");
    }
}
