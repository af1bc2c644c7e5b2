package dev.shaper.demo;

import dev.shaper.cli.BrokerCheck;
import dev.shaper.cli.RunLastKeepingWriters;
import dev.shaper.demo.cli.BrokerCommand;
import dev.shaper.demo.cli.CommandFailure;
import dev.shaper.demo.cli.DbWriterCommand;
import dev.shaper.demo.cli.DemoCommand;
import dev.shaper.demo.cli.ProduceCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code producer-demo} command line: {@code produce}, {@code db-writer}, {@code demo} and {@code broker}.
 * Usage errors exit with 2 and name the option; failures of the world outside (a broker or database that refuses) exit
 * with 1 and a one-line message, no broker answering at the bootstrap address within 10 s with 4; none prints a
 * stack trace.
 */
@Command(name = "producer-demo", mixinStandardHelpOptions = true,
        description = "Traffic generator, database writer and one-command demo for the Kafka Streams traffic shaper.",
        subcommands = {ProduceCommand.class, DbWriterCommand.class, DemoCommand.class, BrokerCommand.class})
public final class ProducerDemo {

    /** Exit code when no broker answers at the bootstrap address: the shaper's for the same failure. */
    public static final int EXIT_NO_BROKER = 4;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, for {@link #main} and tests. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new ProducerDemo());
        cli.setExecutionStrategy(new RunLastKeepingWriters());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println(commandLine.getCommandName() + ": " + describe(e));
            if (e instanceof BrokerCheck.NoBrokerAnswers) {
                return EXIT_NO_BROKER;
            }
            return e instanceof CommandFailure ? 1 : commandLine.getCommandSpec().exitCodeOnExecutionException();
        });
        return cli;
    }

    /** The exception's message and its causes', on one line: enough to act on, without a stack trace. */
    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !text.toString().contains(cause.getMessage())) {
                text.append("; caused by ").append(cause.getClass().getSimpleName()).append(": ")
                        .append(cause.getMessage());
            }
        }
        return text.toString();
    }
}
