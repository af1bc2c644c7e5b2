package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RulesFileTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(100, 1_000, 60_000);

    @Test
    void shouldReadYamlRulesAndFillLeftOutFieldsFromTheDefaults() {
        RuleBook book = RulesFile.parse("rules.yaml", """
                rules:
                  - exact: "tenant-42"
                    rate: 10
                  - prefix: "bulk-"
                    rate: 0.5
                    max.queue: 50000
                    max.delay.ms: 600000
                  - glob: "eu-*-db?"
                    max.queue: 7
                  - regex: "[0-9]+"
                    rate: 3
                """, DEFAULTS);
        assertThat(book.ruleFor("tenant-42")).isEqualTo(new ShapingRule(10, 1_000, 60_000));
        assertThat(book.ruleFor("bulk-import")).isEqualTo(new ShapingRule(0.5, 50_000, 600_000));
        assertThat(book.ruleFor("eu-west-db1")).isEqualTo(new ShapingRule(100, 7, 60_000));
        assertThat(book.ruleFor("eu-west-db12")).isEqualTo(DEFAULTS);
        assertThat(book.ruleFor("12345")).isEqualTo(new ShapingRule(3, 1_000, 60_000));
        assertThat(book.ruleFor("12345x")).isEqualTo(DEFAULTS);
        assertThat(book.ruleFor("tenant-4")).isEqualTo(DEFAULTS);
    }

    @Test
    void shouldReadJson() {
        RuleBook book = RulesFile.parse("rules.json",
                "{\"rules\": [{\"prefix\": \"a\", \"rate\": 2, \"max.queue\": 3}]}", DEFAULTS);
        assertThat(book.ruleFor("abc")).isEqualTo(new ShapingRule(2, 3, 60_000));
    }

    @Test
    void shouldTreatGlobCharactersOtherThanStarAndQuestionMarkLiterally() {
        RuleBook book = RulesFile.parse("r", "rules:\n  - glob: \"a.b[1]*\"\n    rate: 1\n", DEFAULTS);
        assertThat(book.ruleFor("a.b[1]xyz").ratePerSecond()).isEqualTo(1);
        assertThat(book.ruleFor("aXb[1]xyz")).isEqualTo(DEFAULTS);
    }

    @Test
    void shouldAcceptAnEmptyFileAsNoRules() {
        assertThat(RulesFile.parse("r", "  \n", DEFAULTS).rules()).isEmpty();
    }

    @Test
    void shouldNameTheRuleAndFieldOfEveryMistake() {
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    rate: -1\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rules[0]: rate is -1.0; expected a number of units per second > 0");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    exact: b\n", DEFAULTS))
                .hasMessageContaining("rules[0]: has 2 matchers; expected exactly one of exact, prefix, glob, regex");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - rate: 1\n", DEFAULTS))
                .hasMessageContaining("rules[0]: has 0 matchers");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - regex: \"(\"\n", DEFAULTS))
                .hasMessageContaining("rules[0]: regex \"(\" is not a valid regular expression");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    max.queue: -5\n",
                DEFAULTS)).hasMessageContaining("rules[0]: max.queue is -5; expected a whole number >= 0");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    max.delay.ms: -5\n",
                DEFAULTS)).hasMessageContaining("max.delay.ms is -5");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    rat: 5\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rules[0].rat: Unrecognized field \"rat\"");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    rate: fast\n", DEFAULTS))
                .hasMessageContaining("rules[0].rate:");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    max.queue: 1.5\n",
                DEFAULTS)).hasMessageContaining("rules[0].max.queue:");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rulez: []\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rulez: Unrecognized field \"rulez\"");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "other: 1\nrules:\n", DEFAULTS))
                .hasMessageContaining("r.yaml");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules: [\n", DEFAULTS))
                .hasMessageContaining("r.yaml: not valid YAML or JSON");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "version: 2\n", DEFAULTS))
                .hasMessageContaining("r.yaml");
    }

    @Test
    void shouldReadAdmissionBucketsPerRuleWithTheirDefaults() {
        AdmissionPolicy defaultAdmission = AdmissionPolicy.of(new AdmissionRule(50, 80));
        RuleBook book = RulesFile.parse("r.yaml", """
                rules:
                  - exact: "a"
                    admission.rate: 5
                  - exact: "b"
                    admission.rate: 5
                    admission.burst: 20
                  - exact: "c"
                    admission.burst: 200
                  - exact: "d"
                    rate: 1
                """, DEFAULTS, defaultAdmission);
        assertThat(book.hasAdmission()).isTrue();
        assertThat(book.admissionFor("a".getBytes())).isEqualTo(AdmissionPolicy.of(new AdmissionRule(5, 5)));
        assertThat(book.admissionFor("b".getBytes())).isEqualTo(AdmissionPolicy.of(new AdmissionRule(5, 20)));
        assertThat(book.admissionFor("c".getBytes())).isEqualTo(AdmissionPolicy.of(new AdmissionRule(50, 200)));
        assertThat(book.admissionFor("d".getBytes())).isEqualTo(defaultAdmission);
        assertThat(book.admissionFor("zzz".getBytes())).isEqualTo(defaultAdmission);
    }

    @Test
    void shouldRefuseAnAdmissionBurstWithoutAnyAdmissionRate() {
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - exact: a\n    admission.burst: 5\n",
                DEFAULTS, null)).hasMessageContaining("rules[0]: admission.burst is set but there is no admission rate");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - exact: a\n    admission.rate: 0\n",
                DEFAULTS, null)).hasMessageContaining("rules[0]: admission.rate is 0.0");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml",
                "rules:\n  - exact: a\n    admission.rate: 1\n    admission.burst: 0.5\n", DEFAULTS, null))
                .hasMessageContaining("rules[0]: admission.burst is 0.5; expected a number of tokens >= 1");
    }

    @Test
    void shouldReadSeveralLimitsAndTheAlgorithmOfEachRule() {
        AdmissionPolicy defaultAdmission = AdmissionPolicy.of(new AdmissionRule(50, 80));
        RuleBook book = RulesFile.parse("r.yaml", """
                rules:
                  - exact: "a"
                    admission.limits: [{rate: 10, per: 1s, burst: 20}, {rate: 10000, per: 1h}]
                  - exact: "b"
                    admission.algorithm: fixed-window
                    admission.limits:
                      - {rate: 10, per: 100ms}
                      - {rate: 30, per: 6s}
                  - exact: "c"
                    admission.algorithm: Sliding-Window
                    admission.rate: 5
                  - exact: "d"
                    admission.algorithm: sliding-window
                  - exact: "e"
                    admission.limits: [{rate: 3}]
                  - exact: "f"
                    admission.limits: [{rate: 1, per: 1ms}, {rate: 100, per: 1y}, {rate: 5, per: 90m}]
                """, DEFAULTS, defaultAdmission);
        assertThat(book.admissionFor("a".getBytes())).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET,
                List.of(new AdmissionLimit(10, 1000, 20), new AdmissionLimit(10_000, 3_600_000, 10_000))));
        assertThat(book.admissionFor("b".getBytes())).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW,
                List.of(new AdmissionLimit(10, 100, 10), new AdmissionLimit(30, 6000, 30))));
        assertThat(book.admissionFor("c".getBytes())).isEqualTo(new AdmissionPolicy(
                AdmissionAlgorithm.SLIDING_WINDOW, List.of(new AdmissionLimit(5, 1000, 5))));
        // the default's rate under the rule's algorithm
        assertThat(book.admissionFor("d".getBytes())).isEqualTo(new AdmissionPolicy(
                AdmissionAlgorithm.SLIDING_WINDOW, List.of(new AdmissionLimit(50, 1000, 50))));
        // per defaults to a second, a token bucket's burst to one period's rate
        assertThat(book.admissionFor("e".getBytes())).isEqualTo(AdmissionPolicy.of(new AdmissionRule(3, 3)));
        assertThat(book.admissionFor("e".getBytes()).limits()).containsExactly(new AdmissionLimit(3, 1000, 3));
        assertThat(book.admissionFor("f".getBytes()).limits()).extracting(AdmissionLimit::periodMillis)
                .containsExactly(1L, 365L * 24 * 3600 * 1000, 90L * 60 * 1000);
        // The single-limit form is one token bucket, as before
        assertThat(book.admissionFor("zzz".getBytes())).isEqualTo(defaultAdmission);
        assertThat(defaultAdmission.algorithm()).isEqualTo(AdmissionAlgorithm.TOKEN_BUCKET);
        assertThat(defaultAdmission.limits()).containsExactly(new AdmissionLimit(50, 1000, 80));
    }

    @Test
    void shouldApplyTheDefaultAlgorithmToRulesThatNameNone() {
        RuleBook book = RulesFile.parse("r.yaml", "rules:\n  - exact: a\n    admission.rate: 7\n", DEFAULTS, null,
                AdmissionAlgorithm.FIXED_WINDOW);
        assertThat(book.admissionFor("a".getBytes())).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW,
                List.of(new AdmissionLimit(7, 1000, 7))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "admission.limits: []"
                    + " | r.yaml: rules[0]: admission.limits is empty; expected at least one limit",
            "admission.limits: [{per: 1s}]"
                    + " | r.yaml: rules[0]: admission.limits[0].rate is missing; expected the number of units per period",
            "admission.limits: [{rate: 1}, {rate: -2, per: 1s}]"
                    + " | r.yaml: rules[0]: admission.limits[1].rate is -2.0; expected a number of units per period > 0",
            "admission.limits: [{rate: 1, per: 1x}]"
                    + " | r.yaml: rules[0]: admission.limits[0].per is \"1x\"; expected a whole number and a unit, ms, s,"
                    + " m, h, d or y (365 days), e.g. 100ms, 1s, 1h",
            "admission.limits: [{rate: 1, per: 1.5s}]"
                    + " | r.yaml: rules[0]: admission.limits[0].per is \"1.5s\"",
            "admission.limits: [{rate: 1, per: 1000}]"
                    + " | r.yaml: rules[0]: admission.limits[0].per is \"1000\"",
            "admission.limits: [{rate: 1, per: 0s}]"
                    + " | r.yaml: rules[0]: admission.limits[0].per is 0s; expected from 1ms to 365d",
            "admission.limits: [{rate: 1, per: 366d}]"
                    + " | r.yaml: rules[0]: admission.limits[0].per is 366d; expected from 1ms to 365d",
            "admission.limits: [{rate: 1, burst: 0.5}]"
                    + " | r.yaml: rules[0]: admission.limits[0].burst is 0.5; expected a number of tokens >= 1",
            "admission.limits: [{rate: 1, burts: 5}]"
                    + " | r.yaml: rules[0].admission.limits[0].burts: Unrecognized field \"burts\"",
            "admission.limits: [{rate: fast}]"
                    + " | r.yaml: rules[0].admission.limits[0].rate:",
            "admission.limits: [null]"
                    + " | r.yaml: rules[0]: admission.limits[0] is empty; expected a limit {rate, per, burst}",
            "admission.limits: {rate: 1}"
                    + " | r.yaml: rules[0].admission.limits:",
            "{admission.algorithm: fixed-window, admission.limits: [{rate: 10, per: 1s, burst: 20}]}"
                    + " | r.yaml: rules[0]: admission.limits[0].burst is set, but a fixed-window limit has no burst",
            "{admission.algorithm: sliding-window, admission.limits: [{rate: 0.5, per: 1s}]}"
                    + " | r.yaml: rules[0]: admission.limits[0].rate is 0.5; a sliding-window limit admits at most rate"
                    + " units per window: expected a number >= 1",
            "{admission.algorithm: fixed-window, admission.limits: [{rate: 10, per: 1s}, {rate: 5, per: 1000ms}]}"
                    + " | r.yaml: rules[0]: admission.limits[1].per is 1s, as admission.limits[0].per; a fixed-window"
                    + " rule counts each window length once: keep the limit with the lower rate",
            "{admission.algorithm: fixed-window, admission.rate: 10, admission.burst: 20}"
                    + " | r.yaml: rules[0]: admission.burst is set, but a fixed-window limit has no burst",
            "{admission.algorithm: fixed-window, admission.rate: 0.5}"
                    + " | r.yaml: rules[0]: admission.rate is 0.5; a fixed-window limit admits at most that many units"
                    + " per window of a second: expected a number >= 1",
            "{admission.algorithm: leaky, admission.rate: 1}"
                    + " | r.yaml: rules[0]: admission.algorithm is \"leaky\"; expected token-bucket, fixed-window,"
                    + " sliding-window or gcra",
            "{admission.algorithm: fixed-window}"
                    + " | r.yaml: rules[0]: admission.algorithm is set but there is no admission rate; set"
                    + " admission.rate or admission.limits in this rule, or shaper.admission.rate",
            "{admission.rate: 1, admission.limits: [{rate: 1}]}"
                    + " | r.yaml: rules[0]: sets admission.limits and admission.rate; expected one of them",
    })
    void shouldNameTheRuleAndFieldOfEveryAdmissionLimitMistake(String fields, String message) {
        String entry = fields.startsWith("{") ? "  - " + fields.replaceFirst("\\{", "{exact: a, ")
                : "  - exact: a\n    " + fields;
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n" + entry + "\n", DEFAULTS, null))
                .isInstanceOf(RulesFile.RulesFileException.class).hasMessageContaining(message);
    }

    @Test
    void shouldRefuseAFieldGivenTwiceInARuleInsteadOfTakingTheLastValue() {
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    rate: 5\n    rate: 500\n",
                DEFAULTS)).isInstanceOf(RulesFile.RulesFileException.class)
                .hasMessageContaining("r.yaml").hasMessageContaining("Duplicate field 'rate'");
        assertThatThrownBy(() -> RulesFile.parse("r.json", "{\"rules\": [{\"prefix\": \"a\", \"prefix\": \"b\"}]}",
                DEFAULTS)).isInstanceOf(RulesFile.RulesFileException.class)
                .hasMessageContaining("Duplicate field 'prefix'");
    }

    @Test
    void shouldSayTheMostARulesFileMayHoldWhenItIsLarger() {
        StringBuilder yaml = new StringBuilder("rules:\n");
        while (yaml.length() <= RulesFile.MAX_FILE_CHARS) {
            yaml.append("  - exact: key-").append(yaml.length()).append("\n    rate: 5\n");
        }
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", yaml.toString(), DEFAULTS))
                .isInstanceOf(RulesFile.RulesFileException.class)
                .hasMessageContaining("r.yaml: " + yaml.length() + " characters; a rules file holds at most "
                        + RulesFile.MAX_FILE_CHARS);
    }

    @Test
    void shouldSayWhenTheFileCannotBeRead() {
        assertThatThrownBy(() -> RulesFile.load(java.nio.file.Path.of("/no/such/rules.yaml"), DEFAULTS))
                .hasMessageContaining("/no/such/rules.yaml: cannot be read");
    }

    @Test
    void shouldReadPriorityAndWeightAndNameTheFieldWhenOneIsOutOfRange() {
        RuleBook book = RulesFile.parse("r.yaml", "rules:\n  - prefix: bulk-\n    priority: 2\n    weight: 0.5\n",
                DEFAULTS);
        assertThat(book.ruleFor("bulk-1").priority()).isEqualTo(2);
        assertThat(book.ruleFor("bulk-1").weight()).isEqualTo(0.5);
        assertThat(book.ruleFor("other").priority()).isZero();
        assertThat(book.ruleFor("other").weight()).isEqualTo(1.0);
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    priority: 100\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rules[0]: priority is 100; expected a whole number from 0 (the highest)"
                        + " to 99");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    priority: -1\n", DEFAULTS))
                .hasMessageContaining("rules[0]: priority is -1");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    weight: 0\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rules[0]: weight is 0.0; expected a number > 0");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    priority: 1.5\n", DEFAULTS))
                .hasMessageContaining("rules[0].priority:");
    }

    @Test
    void shouldReadEachRulesModeAndPutItsAdmissionInShadowTooEvenTheDefaultOne() {
        AdmissionPolicy defaultAdmission = AdmissionPolicy.of(new AdmissionRule(50, 80));
        RuleBook book = RulesFile.parse("r.yaml", """
                rules:
                  - exact: "tried"
                    mode: shadow
                    admission.rate: 5
                  - exact: "tried-with-defaults"
                    mode: shadow
                  - exact: "enforced"
                    mode: enforce
                    admission.rate: 5
                """, DEFAULTS, defaultAdmission);

        assertThat(book.ruleFor("tried").shadow()).isTrue();
        assertThat(book.admissionFor("tried".getBytes()).shadow()).isTrue();
        assertThat(book.admissionFor("tried".getBytes()).withShadow(false))
                .isEqualTo(AdmissionPolicy.of(new AdmissionRule(5, 5)));
        assertThat(book.ruleFor("tried-with-defaults")).isEqualTo(DEFAULTS.withShadow(true));
        assertThat(book.admissionFor("tried-with-defaults".getBytes())).isEqualTo(defaultAdmission.withShadow(true));
        assertThat(book.ruleFor("enforced").shadow()).isFalse();
        assertThat(book.admissionFor("enforced".getBytes()).shadow()).isFalse();
        assertThat(book.ruleFor("other")).isEqualTo(DEFAULTS);
        assertThat(book.admissionFor("other".getBytes())).isEqualTo(defaultAdmission);
    }

    @Test
    void shouldNameABadModeAndTheTwoItCanBe() {
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    mode: dry-run\n", DEFAULTS))
                .hasMessageContaining("r.yaml: rules[0]: mode is \"dry-run\"; expected enforce (the default) or shadow");
        assertThatThrownBy(() -> RulesFile.parse("r.yaml", "rules:\n  - prefix: a\n    mode: Shadow\n", DEFAULTS))
                .hasMessageContaining("mode is \"Shadow\"");
    }

    @Test
    void shouldPutEveryRuleInShadowUnderTheApplicationsShadowModeAndTheRulesAddedLater() {
        AdmissionPolicy defaultAdmission = AdmissionPolicy.of(new AdmissionRule(50, 80));
        RuleSet rules = RulesFile.parse("r.yaml", "rules:\n  - exact: a\n    mode: enforce\n", DEFAULTS,
                defaultAdmission).version().allInShadow();

        assertThat(rules.defaults().shadow()).isTrue();
        assertThat(rules.defaultAdmission().shadow()).isTrue();
        assertThat(rules.rules()).allSatisfy(rule -> assertThat(rule.shaping().shadow()).isTrue());
        RuleSet withTopicRules = rules.withRules(List.of(new KeyRule(new KeyMatcher.Exact("b"), DEFAULTS,
                defaultAdmission)));
        assertThat(withTopicRules.rules().get(0).shaping().shadow()).isTrue();
        assertThat(withTopicRules.rules().get(0).admission().shadow()).isTrue();
    }
}
