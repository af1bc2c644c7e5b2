package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.cli.RulesCommand;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rules from the rules topic on a real broker, two instances, one key on each: with records queued at the defaults'
 * rate, a rule published with the {@code rules} command raises both keys' rate within a second (the queued records
 * brought forward), a second version halves it, an invalid record for the same rule changes nothing (and each
 * instance counts it), and once the rule is deleted both keys fall back to the defaults. Rates are those of the
 * release times ({@code shaper.released.ms}) in each phase while the releases ran (the stream thread's stalls left
 * out).
 */
@Order(3) // among the slowest classes: started first in the parallel run
class LiveRulesIT {

    private static final Logger LOG = LoggerFactory.getLogger(LiveRulesIT.class);

    private static final int PARTITIONS = 2;
    private static final double DEFAULT_RATE = 10;
    private static final double RULE_RATE = 40;
    private static final double HALVED_RATE = 20;
    /** Per key: more than the whole test releases, so that every phase starts with records queued. */
    private static final int PER_KEY = 400;
    /** How long after a change the new rate must bind. */
    private static final long APPLY_MS = 1_000;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(180)
    void shouldApplyAPublishedRuleAndItsDeletionOnEveryInstanceWithinASecondAndIgnoreAnInvalidOne()
            throws Exception {
        // Given: two instances reading the rules topic, one key on each, at the defaults' 10/s
        broker.createTopics(PARTITIONS, "live-in", "live-out", "live-rejected");
        broker.createTopics(1, Map.of("cleanup.policy", "compact"), "live-rules");
        List<String> keys = onePerPartition();
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "live-rules-it");
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, "live-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "live-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "live-rejected");
        settings.put(ShaperConfig.RULES_TOPIC_CONFIG, "live-rules");
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, DEFAULT_RATE);
        settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        try (ShaperInstance first = ShaperInstance.start(settings);
             ShaperInstance second = ShaperInstance.start(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     "live-out", "live-rejected")) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);

            // When: a backlog on both keys, queued at 10/s; once each has released a second's worth, a rule of 40/s
            List<RecordId> ids = new ArrayList<>();
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (String key : keys) {
                    ids.add(new RecordId(key, seq));
                }
            }
            Workload.send(broker.bootstrapServers(), "live-in", ids, 0);
            awaitReleased(collector, keys, (int) (1.5 * DEFAULT_RATE));
            assertThat(rules("put", "keys", "{\"prefix\": \"live-\", \"rate\": " + RULE_RATE + "}")).isZero();
            long raisedAt = System.currentTimeMillis();
            awaitReleasedUntil(collector, keys, raisedAt + 3_000);

            // And: the rule is halved
            assertThat(rules("put", "keys", "{\"prefix\": \"live-\", \"rate\": " + HALVED_RATE + "}")).isZero();
            long halvedAt = System.currentTimeMillis();
            awaitReleasedUntil(collector, keys, halvedAt + 3_000);

            // And: an invalid record for the same rule, written past the command
            publishRaw("keys", "{\"prefix\": \"live-\", \"rate\": -5}");
            long invalidAt = System.currentTimeMillis();
            awaitReleasedUntil(collector, keys, invalidAt + 3_000);

            // And: the rule is deleted
            assertThat(rules("delete", "keys")).isZero();
            long deletedAt = System.currentTimeMillis();
            awaitReleasedUntil(collector, keys, deletedAt + 3_500);

            // Then: for each key, on its instance, the rate of each phase from a second after its change
            List<CollectedRecord> read = collector.snapshot();
            SoftAssertions.assertSoftly(softly -> {
                for (String key : keys) {
                    double atDefaults = rate(read, key, raisedAt - 1_000, raisedAt, DEFAULT_RATE);
                    double raised = rate(read, key, raisedAt + APPLY_MS, halvedAt, RULE_RATE);
                    double halved = rate(read, key, halvedAt + APPLY_MS, invalidAt, HALVED_RATE);
                    double afterInvalid = rate(read, key, invalidAt, deletedAt, HALVED_RATE);
                    double defaults = rate(read, key, deletedAt + APPLY_MS, deletedAt + 3_500, DEFAULT_RATE);
                    LOG.info("{}: {}/s at the defaults, {}/s raised, {}/s halved, {}/s after the invalid record, {}/s"
                            + " after the delete", key, atDefaults, raised, halved, afterInvalid, defaults);
                    softly.assertThat(atDefaults).as("%s at the defaults", key)
                            .isBetween(DEFAULT_RATE * 0.85, DEFAULT_RATE * 1.15);
                    // The records queued 100 ms apart are brought forward to the raised rate
                    softly.assertThat(raised).as("%s raised", key).isBetween(RULE_RATE * 0.9, RULE_RATE * 1.1);
                    softly.assertThat(mostInOneSecond(read, key, raisedAt + APPLY_MS, halvedAt))
                            .as("%s: most releases in one second once raised", key)
                            .isLessThanOrEqualTo(ReleasePace.maxInOneSecond(RULE_RATE));
                    softly.assertThat(halved).as("%s halved", key).isBetween(HALVED_RATE * 0.9, HALVED_RATE * 1.1);
                    // The records queued at 40/s are behind their dues at 20/s: their key's window keeps them to 21
                    // in any second from a second after the change applied.
                    softly.assertThat(mostInOneSecond(read, key, halvedAt + APPLY_MS + 1_000, deletedAt))
                            .as("%s: most releases in one second once halved", key)
                            .isLessThanOrEqualTo(ReleasePace.maxInOneSecond(HALVED_RATE));
                    softly.assertThat(afterInvalid).as("%s after the invalid record", key)
                            .isBetween(HALVED_RATE * 0.9, HALVED_RATE * 1.1);
                    softly.assertThat(defaults).as("%s after the delete", key)
                            .isBetween(DEFAULT_RATE * 0.85, DEFAULT_RATE * 1.15);
                }
                for (ShaperInstance instance : List.of(first, second)) {
                    softly.assertThat(instance.functionCount(ShaperMetrics.RULES_TOPIC_RECORDS, "outcome",
                            "refused")).as("records refused").isEqualTo(1);
                }
            });
            assertThat(read).filteredOn(r -> !r.isOutput()).isEmpty();
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartWithoutTheRulesTopic() {
        broker.createTopics(1, "missing-in", "missing-out", "missing-rejected");
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "live-rules-missing");
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, "missing-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "missing-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "missing-rejected");
        settings.put(ShaperConfig.RULES_TOPIC_CONFIG, "no-such-rules");

        assertThatThrownBy(() -> ShaperInstance.create(settings))
                .isInstanceOf(ShaperApplication.StartupException.class)
                .hasMessageContaining("the rules topic no-such-rules does not exist; create it compacted")
                .hasMessageContaining(ShaperConfig.RULES_TOPIC_CONFIG);
    }

    /**
     * The release rate of {@code key}'s records released in {@code [fromMs, toMs)}, the key's rule being
     * {@code rate}: the slope of their release times, or, where the stream thread stalled and the key fell below
     * it, the rate while its releases ran (the stalls left out, see {@link ArrivalStats#runningRate}).
     */
    private static double rate(List<CollectedRecord> read, String key, long fromMs, long toMs, double rate) {
        long[] stamps = releases(read, key, fromMs, toMs);
        double slope = ArrivalStats.fittedRatePerSecond(stamps);
        return slope >= rate ? slope : Math.min(rate, ArrivalStats.runningRate(stamps, rate));
    }

    private static int mostInOneSecond(List<CollectedRecord> read, String key, long fromMs, long toMs) {
        return ArrivalStats.maxInWindow(releases(read, key, fromMs, toMs), 1_000_000_000L);
    }

    private static long[] releases(List<CollectedRecord> read, String key, long fromMs, long toMs) {
        return read.stream().filter(r -> r.isOutput() && r.key().equals(key) && r.releasedAtMs() != null)
                .mapToLong(CollectedRecord::releasedAtMs).filter(t -> t >= fromMs && t < toMs).sorted()
                .map(t -> t * 1_000_000L).toArray();
    }

    /** Waits until each key has a record released at {@code wallMs} or later: the phase before it is whole. */
    private static void awaitReleasedUntil(CommittedRecordCollector collector, List<String> keys, long wallMs) {
        collector.await("a record of each key released at " + wallMs + " or later", Duration.ofSeconds(60),
                read -> keys.stream().allMatch(key -> read.stream().anyMatch(r -> r.isOutput() && r.key().equals(key)
                        && r.releasedAtMs() != null && r.releasedAtMs() >= wallMs)));
    }

    private static void awaitReleased(CommittedRecordCollector collector, List<String> keys, int each) {
        collector.await(each + " records of each key released", Duration.ofSeconds(60), read -> keys.stream()
                .allMatch(key -> read.stream().filter(r -> r.isOutput() && r.key().equals(key)).count() >= each));
    }

    /** Two keys under the rule's prefix, on different partitions of the input topic (so on different instances). */
    private static List<String> onePerPartition() {
        List<String> keys = new ArrayList<>();
        boolean[] taken = new boolean[PARTITIONS];
        for (int i = 0; keys.size() < PARTITIONS; i++) {
            String key = "live-" + i;
            int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
            if (!taken[partition]) {
                taken[partition] = true;
                keys.add(key);
            }
        }
        return keys;
    }

    /** The {@code rules} command against the test's broker and rules topic. */
    private static int rules(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", broker.bootstrapServers(), "--topic", "live-rules"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = RulesCommand.run(all.toArray(String[]::new), Map.of(), new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(out, true, StandardCharsets.UTF_8));
        LOG.info("rules {}: exit {}: {}", String.join(" ", args), exit, out.toString(StandardCharsets.UTF_8).trim());
        return exit;
    }

    private static void publishRaw(String id, String value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                broker.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>("live-rules", id.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8))).get();
        }
    }
}
