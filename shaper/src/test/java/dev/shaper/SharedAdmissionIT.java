package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperInstance;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two shaper instances, each with its own admission (own Redis connections, own local state), run one
 * input partition each and admit records of one tenant: together they must admit one limit, not two.
 */
class SharedAdmissionIT {

    private static final Logger LOG = LoggerFactory.getLogger(SharedAdmissionIT.class);

    private static final double RATE = 50;
    private static final double BURST = 20;
    private static final long SYNC_MS = 100;
    private static final double SEND_RATE = 200;
    private static final Duration SEND_FOR = Duration.ofSeconds(4);
    /**
     * Records are admitted when processed, not when sent: the processing window can exceed the sending one by
     * the processing lag at its start and end. A second of slack (50 tokens) is far below what a second,
     * unshared limit would add (20 + 50 x 4 = 220).
     */
    private static final double LAG_SLACK_S = 1.0;

    private static KafkaBroker broker;
    private static RedisServer redis;

    @BeforeAll
    static void startInfrastructure() {
        broker = KafkaBroker.start();
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopInfrastructure() throws Exception {
        if (redis != null) {
            redis.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AdmissionMode.class)
    void shouldAdmitOneSharedLimitInTotalWhenTwoInstancesShareABucket(AdmissionMode mode) throws Exception {
        // Given: two instances of one application, one partition each, one tenant's bucket of 50/s, burst 20
        String suffix = mode.name().toLowerCase(java.util.Locale.ROOT);
        String in = "shared-in-" + suffix;
        String out = "shared-out-" + suffix;
        String rejected = "shared-rejected-" + suffix;
        broker.createTopics(2, in, out, rejected);
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "shared-" + suffix);
        settings.putAll(Map.of(
                ShaperConfig.INPUT_TOPIC_CONFIG, in,
                ShaperConfig.OUTPUT_TOPIC_CONFIG, out,
                ShaperConfig.REJECTED_TOPIC_CONFIG, rejected,
                ShaperConfig.SHAPING_RATE_CONFIG, 1e6,
                ShaperConfig.ADMISSION_RATE_CONFIG, RATE,
                ShaperConfig.ADMISSION_BURST_CONFIG, BURST,
                ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, "tenant",
                ShaperConfig.ADMISSION_MODE_CONFIG, suffix,
                ShaperConfig.ADMISSION_SYNC_MS_CONFIG, SYNC_MS,
                ShaperConfig.REDIS_URI_CONFIG, redis.uri()));
        try (ShaperInstance first = ShaperInstance.start(settings);
             ShaperInstance second = ShaperInstance.start(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(), out,
                     rejected)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);

            // When: 200 records/s of that tenant for 4 s, alternating between the partitions
            List<PacedProducer.Sent> sent = PacedProducer.send(broker.bootstrapServers(), in, 2, SEND_RATE,
                    SEND_FOR, Map.of("tenant", "acme"));
            collector.awaitAccountedFor(PacedProducer.ids(sent), Duration.ofSeconds(60));

            // Then: every record is either admitted or RATE_LIMITED, once
            List<CollectedRecord> records = collector.snapshot();
            assertThat(records).hasSize(sent.size());
            List<CollectedRecord> admitted = records.stream().filter(CollectedRecord::isOutput).toList();
            assertThat(records.stream().filter(r -> !r.isOutput()))
                    .allSatisfy(r -> assertThat(r.reason()).isEqualTo("RATE_LIMITED"));

            // And: both instances admitted, and together no more than one limit allows
            double span = PacedProducer.spanMs(sent) / 1000.0;
            double exact = BURST + RATE * (span + LAG_SLACK_S);
            double bound = mode == AdmissionMode.STRICT ? exact
                    : exact + (2 - 1) * (BURST + RATE * (SYNC_MS + 50) / 1000.0);
            long fromFirst = admitted.stream().filter(r -> r.key().equals("p0")).count();
            long fromSecond = admitted.size() - fromFirst;
            LOG.info("{}: {} of {} admitted over {} s (p0 {}, p1 {}); bound {}, one limit without slack {}", mode,
                    admitted.size(), sent.size(), span, fromFirst, fromSecond, bound, BURST + RATE * span);
            assertThat(fromFirst).isPositive();
            assertThat(fromSecond).isPositive();
            assertThat((double) admitted.size()).isLessThanOrEqualTo(bound);
            assertThat((double) admitted.size()).isGreaterThanOrEqualTo(RATE * (span - LAG_SLACK_S));

            // And: the two instances' metrics count exactly the rejections the topic holds, and time Redis calls
            double limited = 0;
            for (ShaperInstance instance : List.of(first, second)) {
                MeterRegistry metrics = instance.meters();
                limited += metrics.get(ShaperMetrics.REJECTED).tag("reason", "RATE_LIMITED").counter().count();
                String command = mode == AdmissionMode.STRICT ? "take" : "charge";
                assertThat(metrics.get(ShaperMetrics.REDIS_LATENCY).tag("command", command).timer().count())
                        .isPositive();
                assertThat(metrics.get(ShaperMetrics.ADMISSION_BACKEND).tag("backend", "redis").gauge().value())
                        .isEqualTo(1);
            }
            assertThat(limited).isEqualTo(records.size() - admitted.size());
        }
    }
}
