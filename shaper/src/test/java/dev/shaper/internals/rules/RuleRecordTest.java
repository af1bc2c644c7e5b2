package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A record of the rules topic is a whole valid rule, a delete, or refused whole with a message naming what is wrong. */
class RuleRecordTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(100, 1_000, 60_000);

    private static RuleRecord.Change parse(String id, String value) throws RuleRecord.InvalidRuleException {
        return RuleRecord.parse(id == null ? null : id.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8), DEFAULTS, null);
    }

    @Test
    void shouldPrintARuleWithItsFieldsInOneOrderHoweverTheyWereWritten() throws Exception {
        RuleRecord.Put typed = (RuleRecord.Put) parse("a", "{\"mode\": \"shadow\", \"admission.limits\":"
                + " [{\"per\": \"1s\", \"rate\": 5}], \"rate\": 10, \"order\": 3, \"exact\": \"k\"}");
        RuleRecord.Put ordered = (RuleRecord.Put) parse("a", "{\"exact\": \"k\", \"rate\": 10,"
                + " \"admission.limits\": [{\"rate\": 5, \"per\": \"1s\"}], \"mode\": \"shadow\"}");

        String expected = "{\"exact\":\"k\",\"rate\":10,\"admission.limits\":[{\"rate\":5,\"per\":\"1s\"}],"
                + "\"mode\":\"shadow\"}";
        assertThat(RuleRecord.canonical(typed.fields()).toString()).isEqualTo(expected);
        assertThat(RuleRecord.canonical(ordered.fields()).toString()).isEqualTo(expected);
    }

    @Test
    void shouldReadARuleWithItsOrderAndFillLeftOutFieldsFromTheDefaults() throws Exception {
        RuleRecord.Change change = parse("vip", """
                {"order": 5, "exact": "tenant-vip", "rate": 400, "priority": 1, "admission.rate": 10}""");

        assertThat(change).isInstanceOf(RuleRecord.Put.class);
        RuleRecord.Put put = (RuleRecord.Put) change;
        assertThat(put.id()).isEqualTo("vip");
        assertThat(put.order()).isEqualTo(5);
        assertThat(put.rule().matcher()).isEqualTo(new KeyMatcher.Exact("tenant-vip"));
        assertThat(put.rule().shaping()).isEqualTo(new ShapingRule(400, 1_000, 60_000, 1, 1.0));
        assertThat(put.rule().admission()).isEqualTo(AdmissionPolicy.of(new AdmissionRule(10, 10)));
    }

    @Test
    void shouldTakeOrderZeroWhenLeftOut() throws Exception {
        assertThat(((RuleRecord.Put) parse("a", "{\"prefix\": \"a\"}")).order()).isZero();
    }

    @Test
    void shouldReadANullValueAsADelete() throws Exception {
        assertThat(parse("vip", null)).isEqualTo(new RuleRecord.Delete("vip"));
    }

    @Test
    void shouldRefuseEveryFieldARulesFileRefusesNamingTheRuleAndTheField() {
        assertRefused("{\"exact\": \"k\", \"rate\": -1}",
                "rule \"r1\": rate is -1.0; expected a number of units per second > 0");
        assertRefused("{\"exact\": \"k\", \"prefix\": \"k\"}",
                "rule \"r1\": has 2 matchers; expected exactly one of exact, prefix, glob, regex");
        assertRefused("{\"rate\": 5}", "rule \"r1\": has 0 matchers");
        assertRefused("{\"regex\": \"(\"}", "rule \"r1\": regex \"(\" is not a valid regular expression");
        assertRefused("{\"exact\": \"k\", \"max.queue\": 2.5}", "rule \"r1\".max.queue:");
        assertRefused("{\"exact\": \"k\", \"rat\": 5}", "rule \"r1\".rat: Unrecognized field \"rat\"");
        assertRefused("{\"exact\": \"k\", \"priority\": 100}", "rule \"r1\": priority is 100");
        assertRefused("{\"exact\": \"k\", \"admission.burst\": 5}",
                "rule \"r1\": admission.burst is set but there is no admission rate");
    }

    @Test
    void shouldReadSeveralAdmissionLimitsAndTheAlgorithmAsTheRulesFileDoes() throws Exception {
        RuleRecord.Put put = (RuleRecord.Put) parse("api", """
                {"order": 1, "prefix": "api-", "admission.algorithm": "sliding-window",
                 "admission.limits": [{"rate": 10, "per": "1s"}, {"rate": 10000, "per": "1h"}]}""");

        assertThat(put.rule().admission()).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.SLIDING_WINDOW,
                List.of(new AdmissionLimit(10, 1_000, 10), new AdmissionLimit(10_000, 3_600_000, 10_000))));
    }

    @Test
    void shouldTakeTheDefaultAlgorithmOfTheRulesItJoins() throws Exception {
        RuleSet base = new RuleSet(DEFAULTS, null, AdmissionAlgorithm.FIXED_WINDOW, List.of());

        RuleRecord.Put put = (RuleRecord.Put) RuleRecord.parse("api".getBytes(StandardCharsets.UTF_8),
                "{\"prefix\": \"api-\", \"admission.limits\": [{\"rate\": 3, \"per\": \"1m\"}]}"
                        .getBytes(StandardCharsets.UTF_8), base);

        assertThat(put.rule().admission()).isEqualTo(AdmissionPolicy.of(AdmissionAlgorithm.FIXED_WINDOW, 3, 60_000));
    }

    @Test
    void shouldRefuseInvalidAdmissionLimitsOrAlgorithmWholeNamingTheRuleAndTheField() {
        assertRefused("{\"prefix\": \"a\", \"admission.algorithm\": \"leaky-window\", \"admission.rate\": 5}",
                "rule \"r1\": admission.algorithm is \"leaky-window\"; expected");
        assertRefused("{\"prefix\": \"a\", \"admission.algorithm\": 7, \"admission.rate\": 5}",
                "rule \"r1\": admission.algorithm is \"7\"");
        assertRefused("{\"prefix\": \"a\", \"admission.limits\": []}", "rule \"r1\": admission.limits is empty");
        assertRefused("{\"prefix\": \"a\", \"admission.limits\": [{\"rate\": 1, \"per\": \"1x\"}]}",
                "rule \"r1\": admission.limits[0].per is \"1x\"");
        assertRefused("{\"prefix\": \"a\", \"admission.algorithm\": \"fixed-window\","
                + " \"admission.limits\": [{\"rate\": 5, \"burst\": 9}]}", "admission.limits[0].burst is set");
        assertRefused("{\"prefix\": \"a\", \"admission.rate\": 5, \"admission.limits\": [{\"rate\": 5}]}",
                "rule \"r1\": sets admission.limits and admission.rate");
        assertRefused("{\"prefix\": \"a\", \"admission.limits\": [{\"rate\": 5, \"every\": \"1s\"}]}",
                "Unrecognized field \"every\"");
    }

    @Test
    void shouldRefuseAnOrderThatIsNotAWholeNumber() {
        assertRefused("{\"exact\": \"k\", \"order\": 1.5}",
                "rule \"r1\": order is 1.5; expected a whole number from -2147483648 to 2147483647");
        assertRefused("{\"exact\": \"k\", \"order\": \"1\"}", "rule \"r1\": order is \"1\"");
        assertRefused("{\"exact\": \"k\", \"order\": 3000000000}", "rule \"r1\": order is 3000000000");
    }

    @Test
    void shouldRefuseAValueThatIsNotOneJsonObject() {
        assertRefused("rate: 5", "rule \"r1\": not valid JSON");
        assertRefused("[{\"exact\": \"k\"}]", "rule \"r1\": the value is a JSON array; expected one rule as a JSON"
                + " object");
        assertRefused("{\"exact\": \"k\"} {\"exact\": \"j\"}", "rule \"r1\": not valid JSON");
        assertRefused("{\"exact\": \"k\", \"rate\": 1, \"rate\": 2}", "Duplicate field 'rate'");
        assertRefused("", "rule \"r1\": the value is empty");
    }

    @Test
    void shouldRefuseAValueThatIsNotUtf8() {
        assertThatThrownBy(() -> RuleRecord.parse("r1".getBytes(StandardCharsets.UTF_8),
                new byte[] {'{', (byte) 0xC3, '}'}, DEFAULTS, null))
                .isInstanceOf(RuleRecord.InvalidRuleException.class)
                .hasMessageContaining("rule \"r1\": the value is not UTF-8 text");
    }

    @Test
    void shouldRefuseAKeyThatIsNotARuleId() {
        assertThatThrownBy(() -> parse(null, "{\"exact\": \"k\"}")).hasMessageContaining("without a key");
        assertThatThrownBy(() -> parse("", "{\"exact\": \"k\"}")).hasMessageContaining("with an empty key");
        assertThatThrownBy(() -> parse("a\nb", null)).hasMessageContaining("without control characters");
        assertThatThrownBy(() -> parse("x".repeat(201), null)).hasMessageContaining("1 to 200 characters");
        assertThatThrownBy(() -> RuleRecord.parse(new byte[] {(byte) 0xFF}, null, DEFAULTS, null))
                .hasMessageContaining("not UTF-8 text");
    }

    @Test
    void shouldNameTheIdOfARefusedRecord() {
        assertThatThrownBy(() -> parse("r1", "{}"))
                .isInstanceOfSatisfying(RuleRecord.InvalidRuleException.class, e -> assertThat(e.id()).isEqualTo("r1"));
    }

    @Test
    void shouldWriteAValueThatReadsBackAsTheSameRule() throws Exception {
        var fields = new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"prefix\": \"bulk-\", \"rate\": 2}");

        String value = RuleRecord.value(fields, 7);

        RuleRecord.Put put = (RuleRecord.Put) parse("bulk", value);
        assertThat(put.order()).isEqualTo(7);
        assertThat(put.rule().shaping().ratePerSecond()).isEqualTo(2);
    }

    private static void assertRefused(String value, String message) {
        assertThatThrownBy(() -> parse("r1", value)).isInstanceOf(RuleRecord.InvalidRuleException.class)
                .hasMessageContaining(message);
    }
}
