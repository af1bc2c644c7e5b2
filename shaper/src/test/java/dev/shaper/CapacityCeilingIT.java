package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.testsupport.ArrivalLog;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.ChildShaperSettings;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.FaultyProxy;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.ShaperProcesses;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capacity as a ceiling through Redis's faults: two shaper JVMs share C = 400/s through a real redis-server,
 * reached through a proxy that can hold its replies back, offered more than C on eight partitions. One after the
 * other: Redis's replies come later than the timeout while its commands still run (renewals time out, the leases
 * change anyway), the lease table is flushed, Redis pauses 3 s, Redis restarts empty, and one instance is killed
 * with SIGKILL. Through all of it, no second of the two instances' releases together holds more than C plus one record
 * per instance, and every record is in the output exactly once.
 */
@Order(1) // among the slowest classes: started first in the parallel run
class CapacityCeilingIT {

    private static final Logger LOG = LoggerFactory.getLogger(CapacityCeilingIT.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final int PARTITIONS = 8;
    private static final int CAPACITY = 400;
    private static final int INSTANCES = 2;
    private static final double OFFERED = 500;
    private static final Duration SENDING = Duration.ofSeconds(20);
    private static final Path LOG_DIR = Path.of("target", "capacity-ceiling-it");

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @RegisterExtension
    final ShaperProcesses processes = new ShaperProcesses();

    @Test
    @Timeout(240)
    void shouldNeverReleaseMoreThanTheCapacityThroughRedisFaultsAndAKill(@TempDir Path work) throws Exception {
        // Given: two instances on one capacity, their Redis behind a proxy
        broker.createTopics(PARTITIONS, "ceiling-in");
        broker.createTopics(1, "ceiling-out", "ceiling-rejected");
        try (RedisServer redis = RedisServer.start();
             FaultyProxy proxy = FaultyProxy.start(redis.port());
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     "ceiling-out", "ceiling-rejected")) {
            int[] httpPorts = {FreePort.find(), FreePort.find()};
            for (int i = 0; i < INSTANCES; i++) {
                processes.add(ShaperProcess.start("instance-" + i, settings(work, i, proxy.port()),
                        LOG_DIR.resolve("instance-" + i + ".log"), List.of("-Xmx256m"), httpPorts[i]));
            }
            for (int port : httpPorts) {
                Await.until("instance on :" + port + " ready", Duration.ofSeconds(90),
                        () -> Http.get(port, "/health/ready").status() == 200);
            }

            // When: more than C offered for 20 s, evenly over the partitions, while Redis misbehaves
            long startMs = System.currentTimeMillis();
            CompletableFuture<List<PacedProducer.Sent>> sending = CompletableFuture.supplyAsync(() ->
                    PacedProducer.send(broker.bootstrapServers(), "ceiling-in", PARTITIONS, OFFERED, SENDING,
                            Map.of()));
            at(startMs, 3_000);
            proxy.delayReplies(Duration.ofMillis(400)); // commands run, their replies come after the 100 ms timeout
            at(startMs, 6_000);
            proxy.delayReplies(Duration.ZERO);
            at(startMs, 8_000);
            redis.call("FLUSHALL"); // the lease table lost
            at(startMs, 10_000);
            redis.pause(Duration.ofSeconds(3)); // every command waits 3 s (CLIENT PAUSE)
            at(startMs, 15_000);
            redis.kill();
            redis.restart(); // empty
            at(startMs, 18_000);
            processes.get(1).kill(); // SIGKILL: its partitions move to the other after the session timeout
            List<RecordId> ids = PacedProducer.ids(sending.get());
            collector.awaitAccountedFor(ids, Duration.ofSeconds(150));

            // Then: every record once, in the output
            List<CollectedRecord> read = collector.snapshot();
            ArrivalLog.write(LOG_DIR.resolve("arrivals.csv"), read);
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            long[] released = read.stream().filter(CollectedRecord::isOutput)
                    .mapToLong(r -> r.releasedAtMs() * 1_000_000L).sorted().toArray();
            int densest = ArrivalStats.maxInWindow(released, 1_000_000_000L);
            JsonNode survivor = JSON.readTree(Http.get(httpPorts[0], "/capacity").body()).get("instance");
            LOG.info("{} records through Redis faults and a kill: densest second of both instances {} (C = {});"
                    + " the survivor: {}\n{}", ids.size(), densest, CAPACITY, survivor, report.summary());
            assertThat(report.missing()).as(report.summary()).isEmpty();
            assertThat(report.duplicates()).as(report.summary()).isEmpty();
            assertThat(report.rejectedCount()).as(report.summary()).isZero();
            // And: never above the capacity plus one record per instance, in any second
            assertThat(densest).isLessThanOrEqualTo(CAPACITY + INSTANCES);
            // And: the survivor saw the faults, and says so
            assertThat(survivor.get("failedRenewals").asLong()).isPositive();
            assertThat(survivor.get("mostInOneSecond").asLong()).isLessThanOrEqualTo(CAPACITY + 1);
        }
    }

    /** Waits until {@code offsetMs} after {@code startMs}, the wall clock being what the faults are timed by. */
    private static void at(long startMs, long offsetMs) {
        long atMs = startMs + offsetMs;
        Await.until("the clock at +" + offsetMs + " ms", Duration.ofMillis(Math.max(0, atMs
                - System.currentTimeMillis()) + 5_000), () -> System.currentTimeMillis() >= atMs);
    }

    private static Path settings(Path work, int instance, int redisPort) throws Exception {
        Properties p = ChildShaperSettings.queueing("capacity-ceiling-it", broker.bootstrapServers(),
                work.resolve("state-" + instance), "ceiling", 1_000, 20);
        p.setProperty(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, Integer.toString(CAPACITY));
        p.setProperty(ShaperConfig.REDIS_URI_CONFIG, "redis://127.0.0.1:" + redisPort);
        p.setProperty(ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, "100");
        // A killed instance's partitions move once the broker has given up on it.
        p.setProperty("session.timeout.ms", "6000");
        p.setProperty("heartbeat.interval.ms", "1000");
        return ChildShaperSettings.write(p, work.resolve("shaper-" + instance + ".properties"),
                "CapacityCeilingIT, instance " + instance);
    }
}
