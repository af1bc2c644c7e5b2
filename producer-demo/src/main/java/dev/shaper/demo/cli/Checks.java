package dev.shaper.demo.cli;

import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Turns a domain object's own validation into a usage error that names the option it came from. */
final class Checks {

    private Checks() {
    }

    /** {@code factory}'s result, or a usage error naming {@code option} with the factory's message. */
    static <T> T option(CommandSpec spec, String option, Supplier<T> factory) {
        try {
            return factory.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': "
                    + e.getMessage());
        }
    }
}
