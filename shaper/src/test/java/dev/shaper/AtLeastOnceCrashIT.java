package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.ChildShaperSettings;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.PrometheusText;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.ShaperProcesses;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper under at-least-once, killed with SIGKILL while records are queued and its stores have written ahead of
 * the commit (more keys than it keeps states of in memory, and a long commit interval): what the restarted instance
 * restores holds both sides of every change, so every record comes out at least once, each key's records come out
 * first in their order, no key releases more than rate + 1 records in a second, and once all is out nothing is
 * left counted: no phantom record keeps a key waiting or the queue gauge above 0. (Duplicates are at-least-once's
 * own: records released after the last commit come out again.)
 */
class AtLeastOnceCrashIT {

    private static final Logger LOG = LoggerFactory.getLogger(AtLeastOnceCrashIT.class);

    private static final int PARTITIONS = 2;
    private static final int KEYS = 40;
    private static final int PER_KEY = 30;
    private static final int RATE = 10;
    /** Key states in memory, the instance's: a fifth of the keys, so that every tick writes them ahead. */
    private static final int STATE_CACHE_KEYS = 8;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @RegisterExtension
    final ShaperProcesses processes = new ShaperProcesses();

    @Test
    @Timeout(180)
    void shouldRestoreEveryQueuedRecordWithItsKeysStateAfterAKill(@TempDir Path work) throws Exception {
        // Given: 40 keys x 30 records queued at 10/s per key
        broker.createTopics(PARTITIONS, "alos-in", "alos-rejected");
        broker.createTopics(PARTITIONS, KafkaBroker.APPEND_TIME, "alos-out");
        List<RecordId> ids = Workload.interleaved(KEYS, 0, PER_KEY);
        Workload.send(broker.bootstrapServers(), "alos-in", ids, 0);
        Path logFile = Path.of("target", "alos-crash-it", "shaper.log");
        java.nio.file.Files.deleteIfExists(logFile);

        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                "alos-out", "alos-rejected")) {
            // When: killed about a second into the release, between two commits
            ShaperProcess first = ShaperProcess.start("first", settings(work), logFile);
            processes.add(first);
            collector.await("the first second's output", Duration.ofSeconds(60), records -> {
                assertThat(first.isAlive()).as("the first instance runs").isTrue();
                return records.stream().filter(CollectedRecord::isOutput).count() >= KEYS * RATE;
            });
            first.kill();
            int atKill = collector.outputCount();

            // And: restarted on its state directory, and left to drain its queues
            int port = FreePort.find();
            ShaperProcess second = ShaperProcess.start("second", settings(work), logFile, port);
            processes.add(second);
            collector.awaitAccountedFor(ids, Duration.ofSeconds(90));
            Await.until("the queues empty", Duration.ofSeconds(30), () -> queuedRecords(port) == 0);

            // Then: every record at least once, each key's first in order, rate + 1 a second
            List<CollectedRecord> read = collector.snapshot();
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            LOG.info("at-least-once kill after {} output records: {} records read, {} ids duplicated\n{}", atKill,
                    read.size(), report.duplicates().size(), report.summary());
            assertThat(report.missing()).as(report.summary()).isEmpty();
            assertThat(report.unexpected()).as(report.summary()).isEmpty();
            assertThat(report.rejectedCount()).as(report.summary()).isZero();
            assertThat(firstOutOfOrder(read)).as("records of a key that first came out after a later one").isEmpty();
            assertThat(report.keys().values()).allSatisfy(key -> assertThat(key.maxInWindow())
                    .as("most records of %s released in one second", key.key())
                    .isLessThanOrEqualTo(ReleasePace.maxInOneSecond(RATE)));
            // And: nothing is left counted once everything is out: the gauge at 0 (above), and every key's state, as
            // its partition's next commit shows it, idle or with nothing queued
            Await.until("every key's state without queued records", Duration.ofSeconds(15), () -> {
                for (int i = 0; i < KEYS; i++) {
                    Http.Response bucket = Http.get(port, "/buckets/" + Workload.key(i));
                    if (bucket.status() != 404 && !bucket.body().contains("\"queuedRecords\":0,")) {
                        return false;
                    }
                }
                return true;
            });
        }
    }

    /** The records queued in the instance, as its gauge says. */
    private static double queuedRecords(int port) {
        Http.Response metrics = Http.get(port, "/metrics");
        return metrics.status() == 200 ? PrometheusText.value(metrics.body(), "shaper_queue_records")
                : Double.NaN;
    }

    /**
     * The ids that first came out of the output topic after a later id of their key had: each key's records must
     * first leave in their order, whatever came out again after the kill.
     */
    private static List<RecordId> firstOutOfOrder(List<CollectedRecord> read) {
        Map<String, Long> highest = new HashMap<>();
        Set<RecordId> seen = new HashSet<>();
        List<RecordId> late = new ArrayList<>();
        for (CollectedRecord r : read) {
            if (!r.isOutput() || r.id() == null || !seen.add(r.id())) {
                continue;
            }
            Long before = highest.get(r.key());
            if (before != null && r.id().seq() < before) {
                late.add(r.id());
            }
            highest.merge(r.key(), r.id().seq(), Math::max);
        }
        return late;
    }

    private static Path settings(Path work) throws IOException {
        Properties p = ChildShaperSettings.queueing("alos-crash-it", broker.bootstrapServers(),
                work.resolve("state"), "alos", RATE, 1000 / (2 * RATE));
        p.setProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        // Commits far apart: the stores write ahead of them, and the kill falls between two
        p.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "5000");
        p.setProperty(ShaperConfig.STATE_CACHE_MAX_KEYS_CONFIG, Integer.toString(STATE_CACHE_KEYS));
        p.setProperty("session.timeout.ms", "6000");
        p.setProperty("heartbeat.interval.ms", "1000");
        return ChildShaperSettings.write(p, work.resolve("shaper.properties"), "AtLeastOnceCrashIT");
    }
}
