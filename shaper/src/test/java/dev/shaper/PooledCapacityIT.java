package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The total rate in scope {@code cluster}, on a real broker: one instance runs four partitions, and all the load is
 * on one of them. That partition gets what the idle three leave, the whole total, and never more.
 */
class PooledCapacityIT {

    private static final Logger LOG = LoggerFactory.getLogger(PooledCapacityIT.class);
    private static final int PARTITIONS = 4;
    private static final double TOTAL = 40;
    private static final int KEYS = 10;
    private static final int PER_KEY = 40;
    private static final long TICK_MS = 100;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(120)
    void shouldGiveOneBusyPartitionTheWholeTotalRateItsIdleNeighboursLeave() throws Exception {
        // Given: a total of 40/s over 4 partitions (10/s each when split statically), keys far faster than that
        broker.createTopics(PARTITIONS, "pool-in");
        broker.createTopics(1, "pool-out", "pool-rejected");
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "pool-it");
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, "pool-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "pool-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "pool-rejected");
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 1_000.0);
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, TOTAL);
        settings.put(ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_CLUSTER);
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, 60_000L);
        settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);

        try (ShaperInstance shaper = ShaperInstance.start(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     "pool-out", "pool-rejected")) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);

            // When: 400 records arrive at once, all of them on keys of partition 0
            List<String> keys = keysOfPartitionZero();
            List<RecordId> ids = new ArrayList<>();
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (String key : keys) {
                    ids.add(new RecordId(key, seq));
                }
            }
            Workload.send(broker.bootstrapServers(), "pool-in", ids, 0);
            collector.awaitAccountedFor(ids, Duration.ofSeconds(60));

            // Then: every record shaped exactly once, none refused
            VerificationReport report = ShapedOutputVerifier.verify(ids, collector.snapshot());
            assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
            assertThat(report.rejectedCount()).as(report.summary()).isZero();

            // And: after the first second (the partition's part grows within a few ticks), 40/s, not 10/s; and in
            // any second at most the total plus one tick's worth, the bound of a release by ticks (4 per 100 ms tick:
            // eleven ticks fit in a second when the ticks run a few ms early)
            long[] released = collector.snapshot().stream().filter(CollectedRecord::isOutput)
                    .mapToLong(r -> r.releasedAtMs() * 1_000_000L).sorted().toArray();
            long settled = released[0] + 1_000_000_000L;
            long[] steady = Arrays.stream(released).filter(t -> t >= settled).toArray();
            double rate = ArrivalStats.fittedRatePerSecond(steady);
            int densest = ArrivalStats.maxInWindow(released, 1_000_000_000L);
            LOG.info("one busy partition of {}: {} records released at {}/s after the first second, at most {} in one"
                    + " second, against a total of {}/s", PARTITIONS, released.length, rate, densest, TOTAL);
            assertThat(rate).isCloseTo(TOTAL, within(TOTAL * 0.03));
            assertThat(densest).isLessThanOrEqualTo((int) TOTAL + 1); // the ceiling: the total plus one record
        }
    }

    /** {@link #KEYS} keys that the default partitioner sends to partition 0 of {@link #PARTITIONS}. */
    private static List<String> keysOfPartitionZero() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < KEYS; i++) {
            String key = "busy-" + i;
            if (Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS == 0) {
                keys.add(key);
            }
        }
        return keys;
    }
}
