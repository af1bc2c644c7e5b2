package dev.shaper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code rules} command's answers that need no broker: help, usage errors, and rules refused before anything is
 * published (nothing listens on 127.0.0.1:1, so a command that reached for the broker would fail otherwise).
 * Against a broker: RulesCommandIT.
 */
class RulesCommandTest {

    private static final String NO_BROKER = "127.0.0.1:1";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return run(Map.of(), args);
    }

    private int run(Map<String, String> environment, String... args) {
        return RulesCommand.run(args, environment, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldAnswerHelpWithTheSubcommandsAndExitCodes() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("list", "put", "delete", "push", "2   usage error or invalid rule",
                "4   brokers unreachable or topic missing");
    }

    @Test
    void shouldExitWithTheUsageCodeWithoutASubcommandOrOnAnUnknownOne() {
        assertThat(run()).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("expected one of list, put, delete, push");
        assertThat(run("remove", "x")).isEqualTo(RulesCommand.EXIT_USAGE);
    }

    @Test
    void shouldRefuseAnInvalidRuleBeforeContactingTheBroker() {
        assertThat(run("put", "vip", "{\"exact\": \"tenant-vip\", \"rate\": -1}", "--bootstrap-servers", NO_BROKER))
                .isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("not published: rule \"vip\": rate is -1.0; expected a number of units per"
                + " second > 0");
    }

    @Test
    void shouldRefuseRuleTextThatIsNotJsonOrAnUnknownField() {
        assertThat(run("put", "vip", "rate: 5", "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("not published: RULE is not valid JSON");
        assertThat(run("put", "vip", "{\"exact\": \"a\", \"rte\": 5}", "--bootstrap-servers", NO_BROKER))
                .isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("rule \"vip\".rte: Unrecognized field \"rte\"");
    }

    @Test
    void shouldRefuseABurstWithoutARateSinceTheShaperMayHaveNoDefaultAdmission() {
        assertThat(run("put", "vip", "{\"exact\": \"a\", \"admission.burst\": 5}", "--bootstrap-servers", NO_BROKER))
                .isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("admission.burst is set but there is no admission rate");
    }

    @Test
    void shouldRefuseARuleThatAShaperWithAWindowDefaultWouldRefuseUnlessItNamesItsAlgorithm() {
        // A burst is a token bucket's: a shaper whose shaper.admission.algorithm is a window refuses it
        assertThat(run("put", "vip", "{\"exact\": \"a\", \"admission.rate\": 10, \"admission.burst\": 20}",
                "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("a shaper whose shaper.admission.algorithm is a window would refuse it",
                "admission.burst is set", "name its \"admission.algorithm\": \"token-bucket\"");

        // Named, or valid under every algorithm, it is checked and only then the broker is reached
        assertThat(run("put", "vip", "{\"exact\": \"a\", \"admission.rate\": 10, \"admission.burst\": 20,"
                + " \"admission.algorithm\": \"token-bucket\"}", "--bootstrap-servers", NO_BROKER, "--timeout-ms",
                "300")).isEqualTo(RulesCommand.EXIT_KAFKA);
        assertThat(run("put", "vip", "{\"exact\": \"a\", \"admission.rate\": 10}", "--bootstrap-servers", NO_BROKER,
                "--timeout-ms", "300")).isEqualTo(RulesCommand.EXIT_KAFKA);
    }

    @Test
    void shouldNameTheMissingBootstrapServers() {
        assertThat(run("put", "vip", "{\"exact\": \"a\"}")).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("missing --bootstrap-servers (or STREAMS_BOOTSTRAP_SERVERS)");
    }

    @Test
    void shouldRefuseARuleIdThatIsNoId() {
        assertThat(run("delete", "a\tb", "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("without control characters");
    }

    @Test
    void shouldPublishNothingFromAFileWithOneBadRule(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("rules.yaml");
        Files.writeString(file, """
                rules:
                  - id: vip
                    exact: tenant-vip
                    rate: 400
                  - id: bulk
                    prefix: bulk-
                    max.queue: -5
                """);

        assertThat(run("push", file.toString(), "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("nothing published: " + file + ": rules[1]: rule \"bulk\": max.queue is -5");
    }

    @Test
    void shouldFindTheExampleFileValidAndOnlyThenReachForTheBroker() {
        assertThat(run("push", "config/live-rules.yaml", "--bootstrap-servers", NO_BROKER, "--timeout-ms", "300"))
                .isEqualTo(RulesCommand.EXIT_KAFKA);
        assertThat(err()).doesNotContain("nothing published");
    }

    @Test
    void shouldRefuseAFileWithAnIdTwiceOrAnEntryWithoutId(@TempDir Path dir) throws Exception {
        Path twice = dir.resolve("twice.yaml");
        Files.writeString(twice, "rules:\n  - {id: a, prefix: a}\n  - {id: a, prefix: b}\n");
        Path noId = dir.resolve("no-id.yaml");
        Files.writeString(noId, "rules:\n  - {prefix: a}\n");
        Path notRules = dir.resolve("not-rules.yaml");
        Files.writeString(notRules, "rulez:\n  - {id: a, prefix: a}\n");

        assertThat(run("push", twice.toString(), "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("rules[1]: id \"a\" is used twice");
        assertThat(run("push", noId.toString(), "--bootstrap-servers", NO_BROKER)).isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("rules[0]: expected an entry with an id");
        assertThat(run("push", notRules.toString(), "--bootstrap-servers", NO_BROKER))
                .isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("expected a top-level list 'rules'");
        assertThat(run("push", dir.resolve("missing.yaml").toString(), "--bootstrap-servers", NO_BROKER))
                .isEqualTo(RulesCommand.EXIT_USAGE);
        assertThat(err()).contains("cannot be read");
    }
}
