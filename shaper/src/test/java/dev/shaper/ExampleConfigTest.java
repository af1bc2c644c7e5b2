package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RulesFile;
import java.nio.file.Path;
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
    }
}
