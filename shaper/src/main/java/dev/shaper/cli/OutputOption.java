package dev.shaper.cli;

import picocli.CommandLine.Option;

/** {@code --output table|json}: shared by the commands that print a listing. */
final class OutputOption {

    @Option(names = "--output", paramLabel = "table|json", defaultValue = "table",
            description = "How to print the answer: table (default) or json; diagnostics go to stderr either way")
    OutputFormat format;
}
