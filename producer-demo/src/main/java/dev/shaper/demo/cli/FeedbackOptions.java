package dev.shaper.demo.cli;

import dev.shaper.feedback.FeedbackReporter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code db-writer} options of its reports to the shaper (how the database is doing, for the shaper's closed
 * loop): the topic, the writer's id and the interval. {@link #check()} checks the id before anything connects;
 * {@link #startReporter} checks that the topic exists and starts the reporter.
 */
public final class FeedbackOptions {

    private static final int TOPIC_CHECK_SECONDS = 30;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--feedback-topic",
            description = "report the writes to this topic, one JSON report per --feedback-interval keyed by"
                    + " --writer-id, for the shaper to follow the database (default: none, no reports)")
    String topic;

    @Option(names = "--writer-id",
            description = "this writer's id in its reports, unique among the database's writers (default: the host"
                    + " name and the process id)")
    String writerId;

    @Option(names = "--feedback-interval", defaultValue = "1s", converter = OptionConverters.PositiveDuration.class,
            description = "how often to report (default: ${DEFAULT-VALUE})")
    Duration interval;

    /** Whether the writer reports: a topic is given. */
    public boolean enabled() {
        return topic != null && !topic.isBlank();
    }

    /** A usage error when {@code --writer-id} is given but is not a usable key. */
    public void check() {
        if (writerId != null && !writerId.matches("\\p{Graph}{1,255}")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--writer-id': expected 1 to"
                    + " 255 visible characters without spaces, got '" + writerId + "'");
        }
    }

    /** {@code --writer-id}, or {@code <host name>-<process id>}. */
    public String writerId() {
        return writerId != null ? writerId : localWriterId();
    }

    public Duration interval() {
        return interval;
    }

    public String topic() {
        return topic;
    }

    /**
     * A reporter publishing to the topic as {@link #writerId()}, started; null when the writer does not report.
     *
     * @throws CommandFailure when the topic does not exist (the reports would go nowhere) or Kafka does not answer
     */
    public FeedbackReporter startReporter(String bootstrapServers) {
        if (!enabled()) {
            return null;
        }
        requireTopic(bootstrapServers);
        return FeedbackReporter.start(bootstrapServers, topic, writerId(), interval);
    }

    private void requireTopic(String bootstrapServers) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.describeTopics(List.of(topic)).allTopicNames().get(TOPIC_CHECK_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new CommandFailure("the feedback topic " + topic + " does not exist at " + bootstrapServers
                        + "; create it (one partition is enough) or leave out --feedback-topic");
            }
            throw new CommandFailure("cannot check the feedback topic " + topic + " at " + bootstrapServers + ": "
                    + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new CommandFailure("no answer from Kafka at " + bootstrapServers + " within " + TOPIC_CHECK_SECONDS
                    + " s while checking the feedback topic " + topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure("interrupted while checking the feedback topic " + topic);
        }
    }

    /** The host name (as the container or the system knows it) and this process's id: unique on one network. */
    static String localWriterId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "db-writer";
            }
        }
        return host + "-" + ProcessHandle.current().pid();
    }
}
