package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RulesFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The example files the README points to must stay valid. */
class ExampleConfigTest {

    private static final Path CONFIG = Path.of("config");

    @Test
    void shouldAcceptTheExampleSettingsAndRules() throws Exception {
        ShaperConfig config = new ShaperConfig(SettingsLoader.load(CONFIG.resolve("shaper.properties"), Map.of()));
        assertThat(config.totalRate()).isEqualTo(500);
        RuleBook rules = RulesFile.load(CONFIG.resolve("rules.yaml"), config.defaultShapingRule());
        assertThat(rules.ruleFor("bulk-import").ratePerSecond()).isEqualTo(0.5);
        assertThat(rules.ruleFor("report-eu-daily").ratePerSecond()).isEqualTo(2);
        assertThat(rules.ruleFor("123456").maxQueue()).isEqualTo(100);
        assertThat(rules.ruleFor("anyone-else")).isEqualTo(config.defaultShapingRule());
        assertThat(config.admissionAlgorithm()).isEqualTo(AdmissionAlgorithm.TOKEN_BUCKET);
        assertThat(rules.admissionFor("bulk-import".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(AdmissionPolicy.of(new AdmissionRule(10, 50)));
        assertThat(rules.admissionFor("api-7".getBytes(StandardCharsets.UTF_8))).isEqualTo(new AdmissionPolicy(
                AdmissionAlgorithm.SLIDING_WINDOW, List.of(new AdmissionLimit(10, 1000, 10),
                new AdmissionLimit(10_000, 3_600_000, 10_000))));
    }
}
