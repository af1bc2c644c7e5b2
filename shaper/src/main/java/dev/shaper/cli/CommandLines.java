package dev.shaper.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;

/**
 * The shaper's commands run alike: answers on {@code out}, every diagnostic on {@code err} as one line prefixed by
 * the command's name, and the shaper's exit codes: 2 a usage or settings error, 4 the brokers do not answer or the
 * topics are missing or unsuitable, 1 anything else.
 */
final class CommandLines {

    /** Exit code of a usage error, an invalid rule or a bad settings file. */
    static final int EXIT_USAGE = 2;
    /** Exit code when the brokers do not answer or a topic is missing or unsuitable. */
    static final int EXIT_KAFKA = 4;

    private CommandLines() {
    }

    /** A command line for {@code command}, named {@code name} in its diagnostics, writing to these streams. */
    static CommandLine of(String name, Object command, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(command);
        cli.setExecutionStrategy(new RunLastKeepingWriters());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cli.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println(name + ": " + e.getMessage());
            e.getCommandLine().usage(e.getCommandLine().getErr());
            return EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(name + ": " + e.getMessage());
            if (e instanceof CommandFailure failure) {
                return failure.exitCode();
            }
            return e instanceof KafkaException ? EXIT_KAFKA : 1;
        });
        return cli;
    }
}
