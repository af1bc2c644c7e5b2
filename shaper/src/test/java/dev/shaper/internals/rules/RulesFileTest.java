package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import org.junit.jupiter.api.Test;

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
        AdmissionRule defaultAdmission = new AdmissionRule(50, 80);
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
        assertThat(book.admissionFor("a".getBytes())).isEqualTo(new AdmissionRule(5, 5));
        assertThat(book.admissionFor("b".getBytes())).isEqualTo(new AdmissionRule(5, 20));
        assertThat(book.admissionFor("c".getBytes())).isEqualTo(new AdmissionRule(50, 200));
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
}
