package dev.shaper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.kafka.ClientSettings;
import dev.shaper.internals.kafka.StartupTopics;
import dev.shaper.internals.rules.RulesFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code topics create SETTINGS_FILE}: creates the topics the settings name that do not exist yet, with the settings
 * the documentation gives them ({@link TopicPlan}), leaves existing ones as they are, then checks them all as a start
 * does, so that a run that ends 0 means the shaper can start on them. Run it again and it creates nothing.
 */
@Command(name = "create", mixinStandardHelpOptions = true,
        description = "Create the topics SETTINGS_FILE names (input, shaped, rejected, and the shadow, rules and"
                + " feedback topics if set) where missing, with the documented topic settings, and check every one"
                + " as a start does. Existing topics are left as they are. New topics take the settings file's"
                + " replication.factor (-1, the default: the brokers' default.replication.factor).")
final class CreateTopicsCommand implements Runnable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @CommandLine.ParentCommand
    private TopicsCommand parent;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SETTINGS_FILE",
            description = "The shaper's settings file (SHAPER_* and STREAMS_* variables override its keys)")
    private Path settingsFile;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "12",
            description = "Partitions of the input and shaped topics: the shaper's parallelism, chosen once"
                    + " (default: ${DEFAULT-VALUE})")
    private int partitions;

    @Option(names = "--rejected-partitions", paramLabel = "N", defaultValue = "3",
            description = "Partitions of the rejected and shadow topics (default: ${DEFAULT-VALUE})")
    private int rejectedPartitions;

    @Mixin
    private OutputOption output;

    /** What became of one topic. */
    private record Outcome(TopicPlan.Topic topic, String state, int partitions) {
    }

    @Override
    public void run() {
        if (partitions < 1 || rejectedPartitions < 1) {
            throw new CommandFailure(CommandLines.EXIT_USAGE, "--partitions and --rejected-partitions are "
                    + partitions + " and " + rejectedPartitions + "; expected whole numbers >= 1");
        }
        ShaperConfig config;
        Properties streamsProps;
        try {
            config = new ShaperConfig(SettingsLoader.load(settingsFile, parent.environment));
            streamsProps = config.streamsProperties();
        } catch (IOException e) {
            throw new CommandFailure(CommandLines.EXIT_USAGE, "cannot read settings file " + settingsFile + ": "
                    + e.getMessage());
        } catch (ConfigException | RulesFile.RulesFileException e) {
            throw new CommandFailure(CommandLines.EXIT_USAGE, "configuration error: " + e.getMessage());
        }
        Map<String, Object> adminSettings = ClientSettings.admin(streamsProps);
        BrokerCheck.requireAnswer(adminSettings, BrokerCheck.WAIT);
        Optional<Short> replicas = replicationFactor(streamsProps);
        List<TopicPlan.Topic> plan = TopicPlan.of(config, partitions, rejectedPartitions, replicas);
        List<Outcome> outcomes;
        try (Admin admin = Admin.create(adminSettings)) {
            outcomes = createMissing(admin, plan, replicas);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
        } catch (TimeoutException e) {
            throw new CommandFailure(CommandLines.EXIT_KAFKA, "the brokers did not answer within "
                    + WAIT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure(1, "interrupted");
        }
        try {
            StartupTopics.check(config, streamsProps, adminSettings);
        } catch (StartupTopics.Unfit e) {
            print(outcomes);
            throw new CommandFailure(CommandLines.EXIT_KAFKA, "a shaper would not start on these topics: "
                    + e.getMessage());
        }
        print(outcomes);
    }

    /** The replicas of a new topic: the settings' {@code replication.factor}, or empty for the brokers' default. */
    private static Optional<Short> replicationFactor(Properties streamsProps) {
        Object value = streamsProps.get(StreamsConfig.REPLICATION_FACTOR_CONFIG);
        int factor;
        try {
            factor = value == null ? -1 : Integer.parseInt(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw new CommandFailure(CommandLines.EXIT_USAGE, "configuration error: "
                    + StreamsConfig.REPLICATION_FACTOR_CONFIG + " is " + value + "; expected a whole number, -1 for"
                    + " the brokers' default.replication.factor");
        }
        return factor < 1 || factor > Short.MAX_VALUE ? Optional.empty() : Optional.of((short) factor);
    }

    private static List<Outcome> createMissing(Admin admin, List<TopicPlan.Topic> plan, Optional<Short> replicas)
            throws ExecutionException, InterruptedException, TimeoutException {
        Set<String> existing = admin.listTopics().names().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, String> states = new LinkedHashMap<>();
        List<NewTopic> missing = new ArrayList<>();
        for (TopicPlan.Topic topic : plan) {
            if (existing.contains(topic.name()) || states.containsKey(topic.name())) {
                states.putIfAbsent(topic.name(), "exists");
            } else {
                states.put(topic.name(), "created");
                missing.add(new NewTopic(topic.name(), Optional.of(topic.partitions()),
                        replicas).configs(topic.configs()));
            }
        }
        for (var created : admin.createTopics(missing).values().entrySet()) {
            try {
                created.getValue().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                states.put(created.getKey(), "exists"); // created meanwhile by someone else
            }
        }
        Map<String, TopicDescription> described = describeOnceKnown(admin, states.keySet());
        List<Outcome> outcomes = new ArrayList<>();
        for (TopicPlan.Topic topic : plan) {
            outcomes.add(new Outcome(topic, states.get(topic.name()),
                    described.get(topic.name()).partitions().size()));
        }
        return outcomes;
    }

    /** The topics' descriptions, asked again while a topic just created is not yet in the brokers' metadata. */
    private static Map<String, TopicDescription> describeOnceKnown(Admin admin, Set<String> names)
            throws ExecutionException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return admin.describeTopics(names).allTopicNames().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(100); // the brokers' metadata catches up on its own: nothing to advance
            }
        }
    }

    private void print(List<Outcome> outcomes) {
        PrintWriter out = spec.commandLine().getOut();
        if (output.format == OutputFormat.JSON) {
            ArrayNode topics = JSON.createArrayNode();
            for (Outcome outcome : outcomes) {
                topics.addObject().put("topic", outcome.topic().name()).put("setting", outcome.topic().setting())
                        .put("state", outcome.state()).put("partitions", outcome.partitions());
            }
            out.println(topics);
        } else {
            out.printf("%-30s %-32s %-8s %s%n", "TOPIC", "SETTING", "STATE", "PARTITIONS");
            for (Outcome outcome : outcomes) {
                out.printf("%-30s %-32s %-8s %d%n", outcome.topic().name(), outcome.topic().setting(),
                        outcome.state(), outcome.partitions());
            }
        }
        out.flush();
    }
}
