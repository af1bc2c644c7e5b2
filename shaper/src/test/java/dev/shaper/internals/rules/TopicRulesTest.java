package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The rules a topic holds: latest record per id, deletes, and the order they are matched in. */
class TopicRulesTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(100, 1_000, 60_000);
    private final TopicRules rules = new TopicRules();

    private boolean record(String id, String value) throws Exception {
        return rules.apply(RuleRecord.parse(id.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), DEFAULTS, null));
    }

    @Test
    void shouldMatchByOrderThenById() throws Exception {
        record("c", "{\"order\": 1, \"prefix\": \"c\"}");
        record("b", "{\"order\": 2, \"prefix\": \"b\"}");
        record("a", "{\"order\": 2, \"prefix\": \"a\"}");
        record("z", "{\"order\": -1, \"prefix\": \"z\"}");

        assertThat(rules.ordered()).extracting(RuleRecord.Put::id).containsExactly("z", "c", "a", "b");
    }

    @Test
    void shouldKeepTheLatestRecordOfAnIdAndForgetADeletedOne() throws Exception {
        assertThat(record("a", "{\"prefix\": \"a\", \"rate\": 1}")).isTrue();
        assertThat(record("a", "{\"prefix\": \"a\", \"rate\": 2}")).isTrue();
        assertThat(rules.get("a").rule().shaping().ratePerSecond()).isEqualTo(2);

        assertThat(record("a", null)).isTrue();
        assertThat(rules.size()).isZero();
    }

    @Test
    void shouldReportNoChangeForTheSameValueAgainOrTheDeleteOfAnUnknownId() throws Exception {
        record("a", "{\"prefix\": \"a\"}");

        assertThat(record("a", "{\"prefix\": \"a\"}")).isFalse();
        assertThat(record("a", "{\"order\":0,\"prefix\":\"a\"}")).as("spaced otherwise, order spelt out").isFalse();
        assertThat(record("b", null)).isFalse();
    }
}
