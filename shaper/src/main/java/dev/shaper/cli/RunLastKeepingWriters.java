package dev.shaper.cli;

import picocli.CommandLine;

/**
 * picocli's default way of running a command line (the last subcommand given), keeping the writers the caller set
 * with {@code setOut} and {@code setErr}. The default strategy notes {@code System.out} and {@code System.err} when
 * the command line is built, and if either has been replaced by the time it runs (another thread silencing standard
 * output for a moment, a test harness capturing it), picocli swaps the caller's writers for the stream it noted.
 */
public final class RunLastKeepingWriters implements CommandLine.IExecutionStrategy {

    @Override
    public int execute(CommandLine.ParseResult parseResult) {
        return new CommandLine.RunLast().execute(parseResult);
    }
}
