package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.VerificationReport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis dies while two shaper instances admit a steady stream: admission goes on from local buckets at half
 * the rate each, no record is lost or stuck, and when Redis is back both instances return to it within two
 * ping intervals.
 */
class RedisOutageIT {

    private static final Logger LOG = LoggerFactory.getLogger(RedisOutageIT.class);

    private static final double RATE = 40;
    private static final double BURST = 10;
    private static final Duration PING = Duration.ofMillis(250);
    private static final double SEND_RATE = 120;

    @Test
    void shouldAdmitLocallyWhileRedisIsDownAndReturnToRedisWhenItIsBack() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(); RedisServer redis = RedisServer.start()) {
            // Given: two instances in strict mode on one Redis, one partition each
            broker.createTopics(2, "outage-in", "outage-out", "outage-rejected");
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "outage");
            settings.putAll(Map.of(
                    ShaperConfig.INPUT_TOPIC_CONFIG, "outage-in",
                    ShaperConfig.OUTPUT_TOPIC_CONFIG, "outage-out",
                    ShaperConfig.REJECTED_TOPIC_CONFIG, "outage-rejected",
                    ShaperConfig.SHAPING_RATE_CONFIG, 1e6,
                    ShaperConfig.ADMISSION_RATE_CONFIG, RATE,
                    ShaperConfig.ADMISSION_BURST_CONFIG, BURST,
                    ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, "tenant",
                    ShaperConfig.ADMISSION_MODE_CONFIG, "strict",
                    ShaperConfig.REDIS_URI_CONFIG, redis.uri(),
                    ShaperConfig.REDIS_PING_INTERVAL_MS_CONFIG, PING.toMillis()));
            // Killing Redis refuses connections at once; the timeout only has to keep a busy test machine's
            // scheduling hiccups from counting as an outage (and an extra switch).
            settings.put(ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, 250);
            try (ShaperInstance first = ShaperInstance.start(settings);
                 ShaperInstance second = ShaperInstance.start(settings);
                 CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                         "outage-out", "outage-rejected")) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);
                Await.until("both instances count two live instances", Duration.ofSeconds(30),
                        () -> liveInstances(first) == 2 && liveInstances(second) == 2);

                // When: a steady stream for 9 s; Redis is killed after 3 s and started again after 6 s
                CompletableFuture<List<PacedProducer.Sent>> sending = CompletableFuture.supplyAsync(() ->
                        PacedProducer.send(broker.bootstrapServers(), "outage-in", 2, SEND_RATE,
                                Duration.ofSeconds(9), Map.of("tenant", "acme")));
                long start = System.currentTimeMillis();
                Await.until("3 s of traffic", Duration.ofSeconds(10),
                        () -> System.currentTimeMillis() - start >= 3_000);
                redis.kill();
                long killedAt = System.currentTimeMillis();
                Await.until("both instances admit locally", Duration.ofSeconds(5),
                        () -> onBackend(first, "local") && onBackend(second, "local"));
                Await.until("3 s of outage", Duration.ofSeconds(10),
                        () -> System.currentTimeMillis() - killedAt >= 3_000);
                redis.restart();
                long restartedAt = System.nanoTime();
                Await.until("both instances back on Redis", Duration.ofSeconds(10),
                        () -> onBackend(first, "redis") && onBackend(second, "redis"));
                long backAfterMs = (System.nanoTime() - restartedAt) / 1_000_000;
                long restartedAtMs = System.currentTimeMillis() - backAfterMs;

                List<PacedProducer.Sent> sent = sending.get();
                collector.awaitAccountedFor(PacedProducer.ids(sent), Duration.ofSeconds(60));

                // Then: no record lost, duplicated or stuck
                VerificationReport report = ShapedOutputVerifier.verify(PacedProducer.ids(sent), collector.snapshot());
                assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();

                // And: during the outage admission went on, each instance at half the rate
                long outageFrom = killedAt + 500;
                double outageSeconds = (restartedAtMs - outageFrom) / 1000.0;
                long admittedInOutage = collector.snapshot().stream()
                        .filter(CollectedRecord::isOutput)
                        .filter(r -> sentAt(sent, r) >= outageFrom && sentAt(sent, r) < restartedAtMs)
                        .count();
                double localLimit = 2 * (BURST / 2) + RATE * (outageSeconds + 0.5);
                LOG.info("outage of {} s: {} admitted (local limit {}), back on Redis after {} ms, switches {}/{}",
                        outageSeconds, admittedInOutage, localLimit, backAfterMs,
                        switches(first, "local"), switches(second, "local"));
                assertThat(admittedInOutage).isPositive();
                assertThat((double) admittedInOutage).isLessThanOrEqualTo(localLimit);
                assertThat((double) admittedInOutage).isGreaterThanOrEqualTo(RATE * (outageSeconds - 0.5) * 0.8);

                // And: back on Redis within two ping intervals, each switch counted once
                assertThat(backAfterMs).isLessThanOrEqualTo(2 * PING.toMillis());
                assertThat(switches(first, "local")).isEqualTo(1);
                assertThat(switches(second, "local")).isEqualTo(1);
                assertThat(switches(first, "redis")).isEqualTo(1);
                assertThat(first.gauge(ShaperMetrics.ADMISSION_BACKEND, "backend", "redis")).isEqualTo(1);
            }
        }
    }

    private static double liveInstances(ShaperInstance instance) {
        return instance.gauge(ShaperMetrics.ADMISSION_LIVE_INSTANCES, null, null);
    }

    private static boolean onBackend(ShaperInstance instance, String backend) {
        return instance.gauge(ShaperMetrics.ADMISSION_BACKEND, "backend", backend) == 1;
    }

    private static double switches(ShaperInstance instance, String to) {
        return instance.functionCount(ShaperMetrics.ADMISSION_SWITCHES, "to", to);
    }

    private static long sentAt(List<PacedProducer.Sent> sent, CollectedRecord record) {
        return sent.stream().filter(s -> s.id().equals(record.id())).findFirst().orElseThrow().sentAtMs();
    }
}
