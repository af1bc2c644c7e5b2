package dev.shaper.cli;

import java.io.PrintStream;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar shaper.jar topics create SETTINGS_FILE}: the topics a shaper's settings name, created with the
 * documented settings where missing and checked as a start checks them. Exit codes as the shaper's: 0 done, 2 a
 * usage or settings error, 4 the brokers do not answer or a topic is unsuitable, 1 anything else.
 */
@Command(name = "topics", mixinStandardHelpOptions = true, versionProvider = RulesCommand.Version.class,
        description = "Create the shaper's topics.",
        subcommands = {CreateTopicsCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:another failure", "2:usage or settings error",
                "4:brokers unreachable or a topic unsuitable"})
public final class TopicsCommand implements Runnable {

    /** The environment the settings file's keys are overridden from, as at a start. */
    final Map<String, String> environment;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private TopicsCommand(Map<String, String> environment) {
        this.environment = environment;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "expected create");
    }

    /**
     * Runs the command on {@code args} (the words after {@code topics}).
     *
     * @param environment SHAPER_* and STREAMS_* variables override the settings file's keys, as at a start
     * @return the exit code
     */
    public static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
        return CommandLines.of("topics", new TopicsCommand(environment), out, err).execute(args);
    }
}
