package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's answers and exit codes that need no broker (the Kafka one: TopicSettingsIT). */
class ShaperCommandLineTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ShaperApplication.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldAnswerHelpWithTheUsageAndTheExitCodes() {
        assertThat(run("--help")).isEqualTo(ShaperApplication.EXIT_OK);
        assertThat(out()).contains("usage: java -jar shaper.jar SETTINGS_FILE", "2 settings error",
                "4 brokers unreachable");
        assertThat(err()).isEmpty();
    }

    @Test
    void shouldHandTheRulesCommandItsArguments() {
        assertThat(run("rules", "--help")).isEqualTo(ShaperApplication.EXIT_OK);
        assertThat(out()).contains("Usage: rules", "push");
        assertThat(run("rules", "put")).isEqualTo(ShaperApplication.EXIT_SETTINGS);
    }

    @Test
    void shouldAnswerVersion() {
        assertThat(run("--version")).isEqualTo(ShaperApplication.EXIT_OK);
        // Run from the classes, not the jar: no manifest names a version.
        assertThat(out()).isEqualToIgnoringNewLines("shaper development");
    }

    @Test
    void shouldExitWithTheSettingsCodeOnAMissingArgumentOrAnUnknownOption() {
        assertThat(run()).isEqualTo(ShaperApplication.EXIT_SETTINGS);
        assertThat(err()).contains("usage:");
        assertThat(run("--verbose")).isEqualTo(ShaperApplication.EXIT_SETTINGS);
    }

    @Test
    void shouldExitWithTheSettingsCodeOnAnUnreadableSettingsFile(@TempDir Path dir) {
        assertThat(run(dir.resolve("missing.properties").toString())).isEqualTo(ShaperApplication.EXIT_SETTINGS);
        assertThat(err()).contains("cannot read settings file");
    }

    @Test
    void shouldExitWithTheSettingsCodeOnABadSettingBeforeContactingAnyBroker(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shaper.properties");
        // Nothing listens on port 1: a settings error must be found before the brokers are asked anything.
        Files.writeString(file, "application.id=cli\nbootstrap.servers=127.0.0.1:1\nshaper.shaping.rate=-1\n");
        assertThat(run(file.toString())).isEqualTo(ShaperApplication.EXIT_SETTINGS);
        assertThat(err()).contains("configuration error", "shaper.shaping.rate");
    }
}
