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
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.PrometheusText;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputAssertions;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.ShaperProcesses;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three shaper instances share a six-partition input; while records are still arriving and most of them are
 * queued, the instance holding the most queued records is killed with SIGKILL and not restarted. Proves that the
 * two survivors take over its tasks and that, across the move, every record comes out exactly once, each key in
 * order, and no key has more than rate + 1 records in any second of release time (the README's bound with a
 * tick of half the interval), the moved keys' first second included. The killed instance's keys (its input
 * partitions in the consumer group just before the kill) must each be released again after the kill, no sooner
 * than its session can have expired and within {@link #MAX_MOVE_MS}: that delay is the measured time for the
 * tasks to move, logged with the time until the records were readable.
 *
 * <p>Each instance is a child JVM from {@code target/shaper.jar} with a state directory of its own, so the
 * killed instance's transactional id is not reused: its open transaction is aborted by the broker when it
 * times out, not fenced at once as in {@link CrashSafetyIT}. Until then a {@code read_committed} reader of an
 * output partition that transaction wrote to sees nothing past it (the moved keys' records among them), and a
 * survivor restoring a changelog partition it wrote to waits too: so the log gives both the time to the first
 * release and the time to the first readable record. Output, the instances' log and a CSV of every record read
 * back go to {@code target/three-instance-failover-it/}.
 */
@Order(2) // among the slowest classes: started first in the parallel run
class ThreeInstanceFailoverIT {

    private static final Logger LOG = LoggerFactory.getLogger(ThreeInstanceFailoverIT.class);

    private static final int INSTANCES = 3;
    /** One key per partition ({@link PacedProducer} names them p0 .. p5): two tasks per instance. */
    private static final int PARTITIONS = 6;
    private static final int RATE = 50;

    /** Input per key: twice the shaping rate, so the queues grow until the producer stops. */
    private static final double INPUT_PER_KEY = 2.0 * RATE;
    private static final Duration PRODUCING = Duration.ofSeconds(4);
    private static final long TICK_MS = 1000 / (2 * RATE);
    private static final int SESSION_TIMEOUT_MS = 6000;
    private static final int HEARTBEAT_MS = 1000;
    /**
     * The killed instance's tasks must run again within this: the session timeout, then the survivors restore
     * the changelogs, which they read only up to the killed instance's open transaction until the broker aborts
     * it (Kafka Streams' transaction timeout, 10 s, found by a check every 10 s by default).
     */
    private static final long MAX_MOVE_MS = 40_000;
    private static final String APPLICATION_ID = "three-instance-failover-it";

    private static final Path LOG_DIR = Path.of("target", "three-instance-failover-it");
    private static final Duration AWAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @RegisterExtension
    final ShaperProcesses processes = new ShaperProcesses();
    private final List<Integer> ports = new ArrayList<>();

    @Test
    @Timeout(180)
    void shouldMoveAKilledInstancesQueuesToTheOthersEveryRecordOnceInOrderAtTheRate(@TempDir Path work)
            throws Exception {
        // Given: three instances, all ready
        broker.createTopics(PARTITIONS, "failover-in", "failover-rejected");
        broker.createTopics(PARTITIONS, KafkaBroker.APPEND_TIME, "failover-out");
        Path logFile = LOG_DIR.resolve("shapers.log");
        Files.deleteIfExists(logFile);
        long starting = System.nanoTime();
        for (int i = 0; i < INSTANCES; i++) {
            int port = FreePort.find();
            ports.add(port);
            processes.add(ShaperProcess.start("instance-" + i, settings(work, i), logFile, port));
        }
        awaitAllReady();
        LOG.info("{} instances ready after {} ms; shaper log: {}", INSTANCES,
                (System.nanoTime() - starting) / 1_000_000, logFile.toAbsolutePath());

        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                "failover-out", "failover-rejected")) {
            // When: records arrive at twice the rate; once every key has output, the instance holding the most
            // queued records is killed while the producer still runs
            CompletableFuture<List<PacedProducer.Sent>> producing = CompletableFuture.supplyAsync(() ->
                    PacedProducer.send(broker.bootstrapServers(), "failover-in", PARTITIONS,
                            PARTITIONS * INPUT_PER_KEY, PRODUCING, Map.of()));
            collector.await("output on every key, about a second's worth", AWAIT, read -> {
                assertAllAlive();
                return read.stream().filter(CollectedRecord::isOutput).map(CollectedRecord::key).distinct().count()
                        == PARTITIONS && read.stream().filter(CollectedRecord::isOutput).count() >= PARTITIONS * RATE;
            });
            int victim = instanceWithMostQueued();
            Set<String> victimKeys = keysOf(victim);
            long killAtMs = System.currentTimeMillis();
            long killNanos = System.nanoTime();
            processes.get(victim).kill();
            int outputAtKill = collector.outputCount();
            List<RecordId> ids = PacedProducer.ids(producing.get(60, TimeUnit.SECONDS));
            LOG.info("killed {} with SIGKILL after {} output records; {} records produced in all", processes.get(victim),
                    outputAtKill, ids.size());
            assertThat(outputAtKill).as("output records when the instance was killed").isLessThan(ids.size() / 2);
            List<ShaperProcess> survivors = new ArrayList<>(processes.list());
            survivors.remove(victim);
            awaitAccountedFor(collector, ids, survivors);

            // Then
            List<CollectedRecord> read = collector.snapshot();
            ArrivalLog.write(LOG_DIR.resolve("arrivals.csv"), read);
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            TreeMap<String, Long> moveMs = firstReleaseAfter(read, victimKeys, killAtMs);
            TreeMap<String, Long> visibleMs = firstReadAfter(read, victimKeys, killAtMs, killNanos);
            LOG.info("{} records on {} keys at {}/s per key, input {}/s per key for {} s; instance-{} killed after {}"
                    + " output records; keys whose tasks moved, ms from the kill to their first release: {}, to"
                    + " their first record read: {}; session timeout {} ms; per key, records released in the"
                    + " first second after the move: {}\n{}", ids.size(), PARTITIONS, RATE, INPUT_PER_KEY,
                    PRODUCING.toSeconds(), victim, outputAtKill, moveMs, visibleMs, SESSION_TIMEOUT_MS,
                    firstSecondOfRelease(read, killAtMs, moveMs.keySet()), report.summary());
            // Whatever the rebalance and the other instances' share of the cores held back: rate + 1 a second
            ShapedOutputAssertions.assertExactlyOnceInOrderWithin(report,
                    ReleasePace.maxInOneSecond(RATE));
            // The killed instance's keys paused at least until its session expired, then went on elsewhere.
            assertThat(moveMs.keySet()).as("keys of the killed instance released after the kill")
                    .isEqualTo(victimKeys);
            assertThat(moveMs.values()).allSatisfy(ms -> assertThat(ms)
                    .isGreaterThanOrEqualTo(SESSION_TIMEOUT_MS - HEARTBEAT_MS).isLessThan(MAX_MOVE_MS));
            assertThat(survivors).allSatisfy(p -> assertThat(p.isAlive()).as("%s", p).isTrue());
        }
    }

    /** Waits until every instance answers ready at the same time. */
    private void awaitAllReady() {
        Await.until(() -> "all instances ready; " + processes, AWAIT, () -> {
            assertAllAlive();
            return ports.stream().allMatch(port -> Http.get(port, "/health/ready").status() == 200);
        });
    }

    private void assertAllAlive() {
        for (ShaperProcess p : processes) {
            if (!p.isAlive()) {
                throw new AssertionError(p + " died on its own; see " + LOG_DIR.resolve("shapers.log"));
            }
        }
    }

    /**
     * The keys instance {@code n} shapes now: one per input partition assigned to its stream thread, read from
     * the application's consumer group (each instance has a client id of its own). Fails if it has none.
     */
    private static Set<String> keysOf(int n) throws Exception {
        try (Admin admin = broker.admin()) {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(APPLICATION_ID)).all()
                    .get(30, TimeUnit.SECONDS).get(APPLICATION_ID);
            Set<String> keys = new TreeSet<>();
            TreeMap<String, List<Integer>> assignment = new TreeMap<>();
            for (MemberDescription member : group.members()) {
                List<Integer> partitions = member.assignment().topicPartitions().stream()
                        .filter(tp -> tp.topic().equals("failover-in")).map(TopicPartition::partition).sorted()
                        .toList();
                assignment.put(member.clientId(), partitions);
                if (member.clientId().startsWith("instance-" + n + "-")) {
                    partitions.forEach(p -> keys.add("p" + p));
                }
            }
            LOG.info("input partitions per member before the kill: {}", assignment);
            assertThat(keys).as("keys of instance-%d; assignment %s", n, assignment).isNotEmpty();
            return keys;
        }
    }

    /** The index of the instance whose queues hold the most records now; fails if none holds any. */
    private int instanceWithMostQueued() {
        int best = -1;
        double most = 0;
        List<Double> queued = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            Http.Response scrape = Http.get(ports.get(i), "/metrics");
            assertThat(scrape.status()).as("/metrics of instance-%d", i).isEqualTo(200);
            double records = PrometheusText.value(scrape.body(), "shaper_queue_records");
            queued.add(records);
            if (records > most) {
                most = records;
                best = i;
            }
        }
        LOG.info("records queued per instance before the kill: {}", queued);
        assertThat(best).as("an instance with records queued, among %s", queued).isNotNegative();
        return best;
    }

    /** Waits until every one of {@code ids} has been read back, failing at once if a survivor dies. */
    private static void awaitAccountedFor(CommittedRecordCollector collector, List<RecordId> ids,
                                          List<ShaperProcess> survivors) {
        Set<RecordId> wanted = Set.copyOf(ids);
        Await.until(() -> collector.accountedFor(wanted) + " of " + wanted.size() + " ids read back; " + survivors,
                AWAIT, () -> {
                    for (ShaperProcess p : survivors) {
                        if (!p.isAlive()) {
                            throw new AssertionError(p + " died on its own; see " + LOG_DIR.resolve("shapers.log"));
                        }
                    }
                    return collector.accountedFor(wanted) == wanted.size();
                });
    }

    /** Per key of {@code keys}, milliseconds from the kill to the key's first release after it. */
    private static TreeMap<String, Long> firstReleaseAfter(List<CollectedRecord> read, Set<String> keys,
                                                           long killAtMs) {
        TreeMap<String, Long> first = new TreeMap<>();
        for (CollectedRecord r : read) {
            if (r.isOutput() && keys.contains(r.key()) && r.releasedAtMs() != null && r.releasedAtMs() > killAtMs) {
                first.merge(r.key(), r.releasedAtMs() - killAtMs, Math::min);
            }
        }
        return first;
    }

    /**
     * Per key of {@code keys}, milliseconds from the kill until the collector read the key's first record released
     * after it (records released before the kill may still be read after it).
     */
    private static TreeMap<String, Long> firstReadAfter(List<CollectedRecord> read, Set<String> keys,
                                                        long killAtMs, long killNanos) {
        TreeMap<String, Long> first = new TreeMap<>();
        for (CollectedRecord r : read) {
            if (r.isOutput() && keys.contains(r.key()) && r.releasedAtMs() != null && r.releasedAtMs() > killAtMs) {
                first.putIfAbsent(r.key(), (r.arrivalNanos() - killNanos) / 1_000_000);
            }
        }
        return first;
    }

    /** Per moved key, how many records were released in the first second after its first release past the kill. */
    private static TreeMap<String, Integer> firstSecondOfRelease(List<CollectedRecord> read, long killAtMs,
                                                                 Set<String> keys) {
        TreeMap<String, Long> first = new TreeMap<>();
        TreeMap<String, Integer> counts = new TreeMap<>();
        for (CollectedRecord r : read) {
            if (r.isOutput() && keys.contains(r.key()) && r.releasedAtMs() != null && r.releasedAtMs() > killAtMs) {
                first.merge(r.key(), r.releasedAtMs(), Math::min);
            }
        }
        for (CollectedRecord r : read) {
            Long from = r.isOutput() ? first.get(r.key()) : null;
            if (from != null && r.releasedAtMs() != null && r.releasedAtMs() >= from
                    && r.releasedAtMs() - from < ShapedOutputVerifier.ONE_SECOND.toMillis()) {
                counts.merge(r.key(), 1, Integer::sum);
            }
        }
        return counts;
    }

    /** The settings file of instance {@code n}: same application, a state directory of its own. */
    private static Path settings(Path work, int n) throws IOException {
        Properties p = ChildShaperSettings.queueing(APPLICATION_ID, broker.bootstrapServers(),
                work.resolve("state-" + n), "failover", RATE, TICK_MS);
        p.setProperty(StreamsConfig.CLIENT_ID_CONFIG, "instance-" + n);
        // The killed instance's tasks move once the broker has given up on its member: this long after the kill.
        p.setProperty("session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS));
        p.setProperty("heartbeat.interval.ms", Integer.toString(HEARTBEAT_MS));
        return ChildShaperSettings.write(p, work.resolve("shaper-" + n + ".properties"),
                "ThreeInstanceFailoverIT, instance " + n);
    }
}
