package dev.shaper.demo.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Checks a user-given run id: it is part of every record's value and of the database's primary key. */
final class RunIds {

    private RunIds() {
    }

    static String check(CommandSpec spec, String runId) {
        if (!runId.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--run-id': expected 1 to 64"
                    + " letters, digits, '_', '.' or '-', got '" + runId + "'");
        }
        return runId;
    }
}
