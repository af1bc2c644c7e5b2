package dev.shaper.demo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.demo.ProducerDemo;
import dev.shaper.demo.db.DbSlowdown;
import dev.shaper.demo.embedded.DemoSettings;
import dev.shaper.demo.traffic.Bursts;
import dev.shaper.demo.traffic.Ramp;
import dev.shaper.demo.traffic.TrafficLimit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Argument parsing and validation: a bad value is a usage error (exit code 2) whose message names the option,
 * what it expects and what it got, and never a stack trace. None of these runs reach Kafka or a database:
 * the checks come first.
 */
class CommandLineTest {

    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    private int run(String... args) {
        CommandLine cli = ProducerDemo.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', value = {
        "produce   | --keys         | 0      | expected a whole number >= 1, got '0'",
        "produce   | --rate         | fast   | expected a number >= 0, got 'fast'",
        "produce   | --zipf         | -1     | expected a number >= 0, got '-1'",
        "produce   | --pattern      | zigzag | expected one of steady, bursts, ramp, on-off, got 'zigzag'",
        "produce   | --duration     | 10     | expected a duration > 0 such as 500ms, 10s or 2m, got '10'",
        "produce   | --duration     | 0s     | expected a duration > 0 such as 500ms, 10s or 2m, got '0s'",
        "produce   | --count        | 1.5    | expected a whole number >= 1, got '1.5'",
        "produce   | --record-size  | -3     | expected a whole number >= 1, got '-3'",
        "produce   | --burst-every  | 5x     | expected a duration > 0 such as 500ms, 10s or 2m, got '5x'",
        "db-writer | --max-batch    | 0      | expected a whole number >= 1, got '0'",
        "demo      | --rate         | 0      | expected a number > 0, got '0'",
        "demo      | --max-delay    | soon   | expected a duration >= 0 such as 500ms, 10s or 2m, got 'soon'",
        "demo      | --total-rate   | -5     | expected a number >= 0, got '-5'",
        "demo      | --total-rate   | lots   | expected a number >= 0, got 'lots'",
        "db-writer | --feedback-interval | 0s | expected a duration > 0 such as 500ms, 10s or 2m, got '0s'",
        "db-writer | --writer-id    | a b    | expected 1 to 255 visible characters without spaces, got 'a b'",
        "db-writer | --db-slowdown  | 10s    | expected START+LENGTH:DELAY with LENGTH and DELAY > 0, such as 10s+10s",
        "db-writer | --db-slowdown  | 10s    | each database batch 50 ms slower), got '10s'",
        "db-writer | --db-slowdown  | 10s+10s | each database batch 50 ms slower), got '10s+10s'",
        "db-writer | --db-slowdown  | 10s+0s:50ms | each database batch 50 ms slower), got '10s+0s:50ms'",
        "db-writer | --db-slowdown  | 10s+10s:0ms | each database batch 50 ms slower), got '10s+10s:0ms'",
        "db-writer | --db-slowdown  | 10+10s:50ms | each database batch 50 ms slower), got '10+10s:50ms'",
        "demo      | --db-slowdown  | 10s+10s | each database batch 50 ms slower), got '10s+10s'",
        "db-writer | --db-slowdown  | 10s+10s:50ms:1s | each database batch 50 ms slower), got '10s+10s:50ms:1s'",
    })
    void shouldNameTheOptionAndTheExpectedValueWhenAValueIsBad(String command, String option, String value,
                                                               String expected) {
        int exit = run(command, option, value);

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '" + option + "'").contains(expected)
                .doesNotContain("\tat ");
    }

    @Test
    void shouldRefuseABurstLongerThanItsPeriod() {
        int exit = run("produce", "--pattern", "bursts", "--burst-every", "2s", "--burst-length", "3s");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--burst-length': expected at most"
                + " --burst-every (2000ms), got '3000ms'");
    }

    @Test
    void shouldRefuseAZeroRateForASteadyPattern() {
        int exit = run("produce", "--pattern", "steady", "--rate", "0");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--rate': expected a number > 0 for"
                + " --pattern steady, got '0.0'");
    }

    @Test
    void shouldRefuseAnUnsupportedJdbcUrlBeforeConnecting() {
        int exit = run("db-writer", "--jdbc-url", "jdbc:mysql://localhost/test");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--jdbc-url': unsupported JDBC URL"
                + " 'jdbc:mysql://localhost/test'; expected jdbc:postgresql://host:port/database or jdbc:h2:...");
    }

    @Test
    void shouldRefuseATableNameThatIsNotAnIdentifier() {
        int exit = run("db-writer", "--jdbc-url", "jdbc:h2:mem:x", "--table", "rows;drop");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--table': invalid table name 'rows;drop'");
    }

    @Test
    void shouldRefuseARedisUriWithoutScheme() {
        int exit = run("demo", "--redis-uri", "localhost:6379");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--redis-uri': expected redis://host:port");
    }

    @Test
    void shouldRefuseAnUnknownOption() {
        int exit = run("produce", "--rate-per-key", "5");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--rate-per-key'", "Possible solutions: --rate");
    }

    @Test
    void shouldBuildThePatternAndLimitTheOptionsDescribe() {
        ProduceCommand produce = parse("produce", "--pattern", "bursts", "--rate", "10", "--burst-size", "200",
                "--burst-every", "4s", "--burst-length", "500ms", "--count", "1000");

        assertThat(produce.traffic.pattern()).isEqualTo(new Bursts(10, 200, 4, 0.5));
        assertThat(produce.traffic.limit()).isEqualTo(TrafficLimit.ofCount(1000));
    }

    @Test
    void shouldRampOverTheWholeDurationByDefault() {
        ProduceCommand produce = parse("produce", "--pattern", "RAMP", "--ramp-from", "5", "--rate", "50",
                "--duration", "1m");

        assertThat(produce.traffic.pattern()).isEqualTo(new Ramp(5, 50, 60));
        assertThat(produce.traffic.limit()).isEqualTo(TrafficLimit.of(Duration.ofMinutes(1)));
    }

    @Test
    void shouldProduceForThirtySecondsWhenNoLimitIsGiven() {
        ProduceCommand produce = parse("produce");

        assertThat(produce.traffic.limit()).isEqualTo(TrafficLimit.of(Duration.ofSeconds(30)));
    }

    @Test
    void shouldReportAsTheGivenWriterWhenAFeedbackTopicIsGiven() {
        DbWriterCommand writer = parse("db-writer", "--feedback-topic", "db-feedback", "--writer-id", "writer-7",
                "--feedback-interval", "250ms");

        assertThat(writer.feedback.enabled()).isTrue();
        assertThat(writer.feedback.topic()).isEqualTo("db-feedback");
        assertThat(writer.feedback.writerId()).isEqualTo("writer-7");
        assertThat(writer.feedback.interval()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void shouldNotReportWhenNoFeedbackTopicIsGiven() {
        DbWriterCommand absent = parse("db-writer");
        DbWriterCommand empty = parse("db-writer", "--feedback-topic", "");

        assertThat(absent.feedback.enabled()).isFalse();
        assertThat(empty.feedback.enabled()).isFalse();
        assertThat(absent.feedback.interval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void shouldNameTheWriterAfterItsHostAndProcessWhenNoWriterIdIsGiven() {
        DbWriterCommand writer = parse("db-writer", "--feedback-topic", "db-feedback");

        assertThat(writer.feedback.writerId()).matches("\\p{Graph}+-" + ProcessHandle.current().pid());
    }

    @Test
    void shouldReadTheDbSlowdownWhenItIsGivenAsStartLengthAndDelay() {
        DbWriterCommand writer = parse("db-writer", "--db-slowdown", "1.5m+500ms:1s");

        assertThat(writer.dbSlowdown).isEqualTo(new DbSlowdown(Duration.ofSeconds(90), Duration.ofMillis(500),
                Duration.ofSeconds(1)));
    }

    @Test
    void shouldInjectNoSlowdownWhenNoneIsGiven() {
        DbWriterCommand writer = parse("db-writer");

        assertThat(writer.dbSlowdown).isNull();
    }

    @Test
    void shouldCapTheDemoAtTheTotalRateWhenOneIsGiven() {
        DemoCommand demo = parse("demo", "--total-rate", "40.5");

        assertThat(demo.settings().totalRate()).isEqualTo(40.5);
        assertThat(demo.settings().hasTotalRate()).isTrue();
    }

    @Test
    void shouldPassTheSlowdownAndTheFeedbackToTheDemoWhenGiven() {
        DemoCommand demo = parse("demo", "--db-slowdown", "10s+10s:50ms", "--feedback");

        assertThat(demo.settings().dbSlowdown()).isEqualTo(new DbSlowdown(Duration.ofSeconds(10),
                Duration.ofSeconds(10), Duration.ofMillis(50)));
        assertThat(demo.settings().feedback()).isTrue();
    }

    @Test
    void shouldRunTheDemoWithoutSlowdownOrFeedbackWhenNeitherIsGiven() {
        DemoCommand demo = parse("demo");

        assertThat(demo.settings().dbSlowdown()).isNull();
        assertThat(demo.settings().feedback()).isFalse();
    }

    @Test
    void shouldRunTheDemoWithoutACapWhenNoTotalRateIsGiven() {
        DemoCommand absent = parse("demo");
        DemoCommand zero = parse("demo", "--total-rate", "0");

        assertThat(absent.settings().hasTotalRate()).isFalse();
        assertThat(zero.settings().hasTotalRate()).isFalse();
    }

    @Test
    void shouldRefuseAnAdaptiveDemoWithoutATotalRateNamingBothOptions() {
        int exit = run("demo", "--adaptive");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Option '--adaptive' needs '--total-rate' > 0").doesNotContain("\tat ");
    }

    @Test
    void shouldRefuseAMinimumAboveTheTotalRate() {
        int exit = run("demo", "--adaptive", "--total-rate", "60", "--min-rate", "61");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--min-rate': expected at most '--total-rate' 60,"
                + " got '61'");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {"--min-rate | 10", "--target-latency | 40ms", "--controller | gradient"})
    void shouldRefuseAClosedLoopOptionWithoutAdaptive(String option, String value) {
        int exit = run("demo", "--total-rate", "60", option, value);

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("Option '" + option + "' applies only with '--adaptive'");
    }

    @Test
    void shouldRefuseAnUnknownController() {
        int exit = run("demo", "--adaptive", "--total-rate", "60", "--controller", "pid");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--controller", "aimd", "gradient", "pid");
    }

    @Test
    void shouldCloseTheLoopWithItsDefaultsAndTheFeedbackWhenAdaptiveIsGiven() {
        DemoCommand demo = parse("demo", "--adaptive", "--total-rate", "60");

        DemoSettings settings = demo.settings();
        assertThat(settings.isAdaptive()).isTrue();
        assertThat(settings.feedback()).as("implied").isTrue();
        assertThat(settings.adaptive()).isEqualTo(new DemoSettings.Adaptive(12,
                Duration.ofMillis(DemoCommand.DEFAULT_TARGET_LATENCY_MS), "aimd",
                Duration.ofMillis(500)));
    }

    @Test
    void shouldProduceLongerWithAdaptiveSoThatTheCapacityCanComeBack() {
        DemoCommand fixed = parse("demo");
        DemoCommand adaptive = parse("demo", "--adaptive", "--total-rate", "60");
        DemoCommand given = parse("demo", "--adaptive", "--total-rate", "60", "--duration", "20s");

        assertThat(fixed.settings().duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(adaptive.settings().duration()).isEqualTo(Duration.ofSeconds(45));
        assertThat(given.settings().duration()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void shouldTakeTheClosedLoopsOptionsWhenGiven() {
        DemoCommand demo = parse("demo", "--adaptive", "--total-rate", "60", "--min-rate", "6", "--target-latency",
                "45ms", "--controller", "gradient");

        assertThat(demo.settings().adaptive()).isEqualTo(new DemoSettings.Adaptive(6, Duration.ofMillis(45),
                "gradient", Duration.ofMillis(500)));
    }

    @Test
    void shouldKeepTheCapacityFixedWithoutAdaptive() {
        DemoCommand demo = parse("demo", "--total-rate", "60");

        assertThat(demo.settings().isAdaptive()).isFalse();
    }

    @Test
    void shouldWriteToTheCallersWritersEvenWhenStandardOutputWasReplacedAfterTheCommandLineWasBuilt() {
        // Given: a command line built, then standard output replaced for a moment (as the embedded broker's start
        // silences it, on another thread)
        CommandLine cli = ProducerDemo.commandLine();
        java.io.PrintStream systemOut = System.out;
        java.io.ByteArrayOutputStream elsewhere = new java.io.ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new java.io.PrintStream(elsewhere, true, java.nio.charset.StandardCharsets.UTF_8));
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            // When: a command prints
            exit = cli.execute("db-writer", "--help");
        } finally {
            System.setOut(systemOut);
        }

        // Then: it printed to the writer it was given, not to a standard output it noted before
        assertThat(exit).isZero();
        assertThat(out.toString()).contains("Usage: producer-demo db-writer");
        assertThat(elsewhere.size()).isZero();
    }

    @Test
    void shouldDescribeTheClosedLoopsOptionsInTheDemosHelp() {
        // picocli warns on System.err about a description it cannot format (a lone '%'), and prints it raw
        java.io.PrintStream systemErr = System.err;
        java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
        int exit;
        try {
            System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8));
            exit = run("demo", "--help");
        } finally {
            System.setErr(systemErr);
        }

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("--adaptive", "--min-rate", "--target-latency", "--controller=aimd|gradient",
                "down 30 % per decision");
        assertThat(err.toString() + warnings.toString(java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain("Could not format");
    }

    @Test
    void shouldListTheSubcommandsInTheHelp() {
        int exit = run("--help");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("produce", "db-writer", "demo");
    }

    /** The subcommand {@code args} name, its options read. */
    @SuppressWarnings("unchecked")
    private static <T> T parse(String... args) {
        CommandLine cli = ProducerDemo.commandLine();
        CommandLine.ParseResult result = cli.parseArgs(args);
        return (T) result.subcommand().commandSpec().userObject();
    }
}
