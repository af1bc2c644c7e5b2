package dev.shaper.cli;

import java.io.PrintStream;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar shaper.jar rules list|put|delete|push ...}: manages the rules of the rules topic
 * ({@code shaper.rules.topic}). Every rule is checked as the shaper checks it before anything is published, so an
 * instance never has to refuse one. Exit codes as the shaper's: 0 done, 2 a usage error or an invalid rule, 4 the
 * brokers do not answer or the topic is missing, 1 anything else.
 */
@Command(name = "rules", mixinStandardHelpOptions = true, versionProvider = RulesCommand.Version.class,
        description = "Manage the shaper's live rules in the rules topic (shaper.rules.topic): record key = rule id,"
                + " value = one rule as JSON (the fields of a rules-file entry plus order), null = deleted.",
        subcommands = {ListRulesCommand.class, PutRuleCommand.class, DeleteRuleCommand.class, PushRulesCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:another failure", "2:usage error or invalid rule",
                "4:brokers unreachable or topic missing"})
public final class RulesCommand implements Runnable {

    /** Exit code of a usage error or an invalid rule. */
    public static final int EXIT_USAGE = CommandLines.EXIT_USAGE;
    /** Exit code when the brokers do not answer or the topic is missing. */
    public static final int EXIT_KAFKA = CommandLines.EXIT_KAFKA;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "expected one of list, put, delete, push");
    }

    /**
     * Runs the command on {@code args} (the words after {@code rules}).
     *
     * @param environment read for {@code STREAMS_BOOTSTRAP_SERVERS} and {@code SHAPER_RULES_TOPIC}, the shaper's own
     *                    names for the two settings
     * @return the exit code
     */
    public static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
        CommandLine cli = CommandLines.of("rules", new RulesCommand(), out, err);
        cli.setDefaultValueProvider(new EnvironmentDefaults(environment));
        return cli.execute(args);
    }

    /** The shaper's version, as {@code --version} of the shaper answers it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = RulesCommand.class.getPackage().getImplementationVersion();
            return new String[] {"shaper rules " + (version == null ? "development" : version)};
        }
    }

    /** Defaults from the environment the command was given, under the names the shaper reads them by. */
    private record EnvironmentDefaults(Map<String, String> environment) implements CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
            if (argSpec instanceof CommandLine.Model.OptionSpec option) {
                if (option.longestName().equals(TopicOptions.BOOTSTRAP_SERVERS)) {
                    return environment.get("STREAMS_BOOTSTRAP_SERVERS");
                }
                if (option.longestName().equals(TopicOptions.TOPIC)) {
                    return environment.getOrDefault("SHAPER_RULES_TOPIC", TopicOptions.DEFAULT_TOPIC);
                }
            }
            return argSpec.defaultValue();
        }
    }
}
