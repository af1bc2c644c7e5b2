package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * What the rules topic's reader makes of its records' admission fields: {@code admission.limits} and {@code
 * admission.algorithm} exactly as a rules file's, and a record with an invalid one refused whole. No broker: the
 * records are handed to the reader as its poll would.
 */
class RulesTopicReaderTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(100, 1_000, 60_000);
    private static final byte[] API_KEY = "api-7".getBytes(StandardCharsets.UTF_8);

    private long offset;

    private ConsumerRecord<byte[], byte[]> record(String id, String value) {
        return new ConsumerRecord<>("rules", 0, offset++, id.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static RulesTopicReader reader(RuleSet fileRules, LiveRules live) {
        return new RulesTopicReader(Map.of("bootstrap.servers", "unused:9092"), "rules", fileRules, live);
    }

    @Test
    void shouldApplyARuleWithTwoAdmissionLimitsPublishedOnTheTopic() {
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of()));
        RuleBook book = new RuleBook(live);
        assertThat(book.admissionFor(API_KEY)).isNull();

        try (RulesTopicReader reader = reader(live.current(), live)) {
            reader.apply(List.of(record("api", """
                    {"prefix": "api-", "admission.limits": [{"rate": 10, "per": "1s", "burst": 20},
                     {"rate": 10000, "per": "1h"}]}""")));

            assertThat(reader.appliedRecords()).isEqualTo(1);
            assertThat(reader.refusedRecords()).isZero();
        }
        assertThat(book.admissionFor(API_KEY)).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET,
                List.of(new AdmissionLimit(10, 1_000, 20), new AdmissionLimit(10_000, 3_600_000, 10_000))));
        assertThat(book.admissionFor("other".getBytes(StandardCharsets.UTF_8))).isNull();
    }

    @Test
    void shouldGiveATopicRuleWithoutAnAlgorithmTheDefaultOneAndReadItsOwn() {
        // shaper.admission.algorithm=sliding-window without a default rate: the default algorithm travels alone
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, AdmissionAlgorithm.SLIDING_WINDOW,
                List.of()));
        RuleBook book = new RuleBook(live);

        try (RulesTopicReader reader = reader(live.current(), live)) {
            reader.apply(List.of(
                    record("api", "{\"prefix\": \"api-\", \"admission.limits\": [{\"rate\": 10, \"per\": \"1s\"},"
                            + " {\"rate\": 30, \"per\": \"1m\"}]}"),
                    record("bulk", "{\"prefix\": \"bulk-\", \"admission.algorithm\": \"fixed-window\","
                            + " \"admission.rate\": 5}")));
        }

        assertThat(book.admissionFor(API_KEY)).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.SLIDING_WINDOW,
                List.of(new AdmissionLimit(10, 1_000, 10), new AdmissionLimit(30, 60_000, 30))));
        assertThat(book.admissionFor("bulk-1".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(AdmissionPolicy.of(AdmissionAlgorithm.FIXED_WINDOW, 5, 1_000));
    }

    @Test
    void shouldRefuseARuleRecordWithAnInvalidAlgorithmWholeAndKeepTheRuleAsItWas() {
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of()));
        RuleBook book = new RuleBook(live);
        AdmissionPolicy before = new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW,
                List.of(new AdmissionLimit(10, 1_000, 10)));

        try (RulesTopicReader reader = reader(live.current(), live)) {
            reader.apply(List.of(record("api", "{\"prefix\": \"api-\", \"rate\": 5, \"admission.algorithm\":"
                    + " \"fixed-window\", \"admission.limits\": [{\"rate\": 10, \"per\": \"1s\"}]}")));
            RuleSet version = live.current();

            // When: the same rule with another rate, other limits and an algorithm that does not exist
            reader.apply(List.of(record("api", "{\"prefix\": \"api-\", \"rate\": 50, \"admission.algorithm\":"
                    + " \"leaky-window\", \"admission.limits\": [{\"rate\": 1, \"per\": \"1h\"}]}")));

            // Then: refused and counted, and nothing of it applied: no new version, the rule as it was
            assertThat(reader.refusedRecords()).isEqualTo(1);
            assertThat(reader.appliedRecords()).isEqualTo(1);
            assertThat(live.current()).isSameAs(version);
        }
        assertThat(book.admissionFor(API_KEY)).isEqualTo(before);
        assertThat(book.firstMatch("api-7")).get().extracting(rule -> rule.shaping().ratePerSecond()).isEqualTo(5.0);
    }
}
