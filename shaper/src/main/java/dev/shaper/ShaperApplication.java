package dev.shaper;

import dev.shaper.cli.BrokerCheck;
import dev.shaper.cli.CommandLineLogging;
import dev.shaper.cli.RulesCommand;
import dev.shaper.cli.TopicsCommand;
import dev.shaper.internals.config.EffectiveSettings;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.kafka.ClientSettings;
import dev.shaper.internals.kafka.StartupTopics;
import dev.shaper.internals.http.StreamsHealth;
import dev.shaper.internals.rules.LiveRules;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RuleSet;
import dev.shaper.internals.rules.RulesFile;
import dev.shaper.internals.wiring.InstanceParts;
import dev.shaper.internals.wiring.InstanceWiring;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper as a program: {@code java -jar shaper.jar path/to/shaper.properties}; {@code java -jar shaper.jar rules
 * ...} manages the rules topic instead ({@link RulesCommand}).
 *
 * <p>The file holds Kafka Streams settings and the {@code shaper.*} settings of {@link ShaperConfig};
 * environment variables override single keys (see {@link SettingsLoader}). Stops cleanly on SIGTERM.
 * Exit codes: 0 after a clean stop, 1 when Kafka Streams fails, 2 for a bad configuration; 3 when the heap runs
 * out under {@code -XX:+ExitOnOutOfMemoryError}, which the container image sets.
 */
public final class ShaperApplication {

    private static final Logger LOG = LoggerFactory.getLogger(ShaperApplication.class);
    /**
     * How long a stop waits for Kafka Streams to close (commit, flush, checkpoint); the Redis and HTTP parts close
     * after it. An orchestrator's grace period must be longer (deploy/kubernetes: terminationGracePeriodSeconds).
     */
    public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final ShaperConfig config;
    private final KafkaStreams streams;
    private final StreamsHealth health;
    /** What the instance runs beside Kafka Streams, closed after it. */
    private final InstanceParts parts;
    private final StopRequest stop;
    private boolean closed;

    private ShaperApplication(ShaperConfig config, KafkaStreams streams, StreamsHealth health, InstanceParts parts,
                              StopRequest stop) {
        this.config = config;
        this.streams = streams;
        this.health = health;
        this.parts = parts;
        this.stop = stop;
    }

    /** Exit code of a clean stop. */
    public static final int EXIT_OK = 0;
    /** Exit code after a fatal Kafka Streams error (the other instances take over this one's tasks). */
    public static final int EXIT_FATAL = 1;
    /** Exit code of a settings error: a bad or unknown key, a bad rules file, an unreadable settings file. */
    public static final int EXIT_SETTINGS = 2;
    /**
     * Exit code when the brokers do not answer, or the topics are missing or unsuitable. Not 3: the image's JVM
     * exits with 3 on an {@code OutOfMemoryError} ({@code -XX:+ExitOnOutOfMemoryError}).
     */
    public static final int EXIT_KAFKA = 4;

    /**
     * The environment variable (or system property) that picks the log format, text or json: read by logback
     * ({@code logback.xml}), checked here. Not a {@code SHAPER_*} setting: logging starts before the settings are read.
     */
    static final String LOG_FORMAT = "LOG_FORMAT";

    /** The first words that run a command instead of the shaper. */
    private static final java.util.Set<String> COMMANDS = java.util.Set.of("rules", "topics");

    private static final String USAGE = """
            usage: java -jar shaper.jar SETTINGS_FILE
                   java -jar shaper.jar rules list|put|delete|push ... --bootstrap-servers HOST:PORT
                   java -jar shaper.jar topics create SETTINGS_FILE
                   java -jar shaper.jar --help | --version

            SETTINGS_FILE is a Java properties file: application.id, bootstrap.servers, any Kafka Streams or
            client key, and the shaper.* settings; SHAPER_* and STREAMS_* environment variables override keys.
            "rules" manages the live rules of shaper.rules.topic (java -jar shaper.jar rules --help).
            "topics create" creates the topics the settings name, and checks them as a start does.

            LOG_FORMAT=json (environment variable or -DLOG_FORMAT=json) logs one JSON object per line.

            exit codes: 0 stopped cleanly, 1 fatal Kafka Streams error, 2 settings error,
                        4 brokers unreachable, or topics missing (at start, or too long while running) or unsuitable""";

    public static void main(String[] args) {
        if (args.length >= 1 && COMMANDS.contains(args[0])) {
            CommandLineLogging.forCommand();
        }
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /**
     * The command line: starts the shaper on the settings file {@code args[0]} and runs it until it stops, or
     * answers {@code --help} and {@code --version}.
     *
     * @return the process's exit code, one of the {@code EXIT_} constants
     */
    static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
        if (args.length >= 1 && args[0].equals("rules")) {
            return RulesCommand.run(Arrays.copyOfRange(args, 1, args.length), environment, out, err);
        }
        if (args.length >= 1 && args[0].equals("topics")) {
            return TopicsCommand.run(Arrays.copyOfRange(args, 1, args.length), environment, out, err);
        }
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(USAGE);
            return EXIT_OK;
        }
        if (args.length == 1 && args[0].equals("--version")) {
            out.println("shaper " + version());
            return EXIT_OK;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            err.println(USAGE);
            return EXIT_SETTINGS;
        }
        String logFormatError = logFormatError(System.getProperty(LOG_FORMAT, environment.get(LOG_FORMAT)));
        if (logFormatError != null) {
            err.println("shaper: configuration error: " + logFormatError);
            return EXIT_SETTINGS;
        }
        ShaperApplication app;
        try {
            app = create(SettingsLoader.load(Path.of(args[0]), environment));
        } catch (ConfigException | RulesFile.RulesFileException e) {
            err.println("shaper: configuration error: " + e.getMessage());
            return EXIT_SETTINGS;
        } catch (StartupException e) {
            err.println("shaper: cannot start against the brokers: " + e.getMessage());
            return EXIT_KAFKA;
        } catch (java.io.IOException e) {
            err.println("shaper: cannot read settings file " + args[0] + ": " + e);
            return EXIT_SETTINGS;
        }
        return app.runUntilStopped();
    }

    /**
     * Why the value of {@link #LOG_FORMAT} cannot be used, or null if it can (unset, text or json). logback picks its
     * appender by this name ({@code logback.xml}) before the settings are read, and any other name would leave it
     * with none: not a line logged. The check turns that silence into a settings error.
     */
    static String logFormatError(String format) {
        if (format == null || format.equals("text") || format.equals("json")) {
            return null;
        }
        return LOG_FORMAT + "=" + format + " is not a log format: expected text or json (lower case), or unset for"
                + " text";
    }

    /** The version in the jar's manifest, or "development" when run from the classes. */
    static String version() {
        String version = ShaperApplication.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }

    /**
     * Validates the settings, checks the topics, builds the Kafka Streams instance (not yet started) and starts
     * the HTTP server (which reports "not ready" until Kafka Streams runs); {@link InstanceWiring} makes the parts.
     */
    public static ShaperApplication create(Map<String, String> settings) {
        ShaperConfig config = new ShaperConfig(settings);
        RuleSet fileRules = RulesFile.ruleSetFor(config); // the rules file, read once
        Properties streamsProps = config.streamsProperties();
        InstanceWiring.usePollMsFor(new RuleBook(LiveRules.fixed(fileRules)), config, streamsProps);
        StreamsConfig streamsConfig = new StreamsConfig(streamsProps); // fails early, naming the key, on a bad setting
        LOG.info("Effective settings: {}", EffectiveSettings.describe(streamsProps));
        StartupTopics topics = startupTopics(config, streamsProps);
        LOG.info("Largest records: {}", topics.topicLimits());
        StopRequest stop = new StopRequest();
        try {
            InstanceWiring.Instance instance = InstanceWiring.wire(config, fileRules, streamsProps, topics,
                    applicationServer(streamsConfig), () -> stop.request(EXIT_KAFKA));
            return new ShaperApplication(config, instance.streams(), instance.health(), instance.parts(), stop);
        } catch (InstanceWiring.RulesTopicUnreadable e) {
            throw new StartupException(e.getMessage());
        }
    }

    /** This instance's {@code application.server} (how other instances reach its HTTP server), or null. */
    private static HostInfo applicationServer(StreamsConfig streamsConfig) {
        String endpoint = streamsConfig.getString(StreamsConfig.APPLICATION_SERVER_CONFIG);
        return endpoint == null || endpoint.isBlank() ? null : HostInfo.buildFromEndpoint(endpoint);
    }

    /** Starts Kafka Streams, blocks until SIGTERM or a fatal error, and closes cleanly. */
    public int runUntilStopped() {
        Thread hook = new Thread(() -> {
            LOG.info("Stop requested; closing Kafka Streams (commits and flushes the queues' state)");
            close();
        }, "shaper-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        start();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
        return stop.exitCode();
    }

    /**
     * Waits until this instance decides to stop (a fatal error, a topic missing for too long, Kafka Streams
     * stopping); the exit code {@link #runUntilStopped} would return, or -1 if none came within {@code timeout}.
     */
    public int awaitStopDecision(Duration timeout) throws InterruptedException {
        return stop.await(timeout) ? stop.exitCode() : -1;
    }

    /**
     * Starts the admission, if any, and Kafka Streams, and returns. A fatal stream-thread error shuts this
     * instance down (the other instances take over its tasks); {@link #runUntilStopped} then returns 1. An output or
     * rejected topic missing for {@code shaper.topics.missing.stop.ms} stops it with 4.
     */
    public void start() {
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("Kafka Streams failed; shutting down", e);
            stop.request(EXIT_FATAL);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((newState, oldState) -> {
            LOG.info("Kafka Streams state {} -> {}", oldState, newState);
            health.stateChanged();
            if (newState == KafkaStreams.State.RUNNING) {
                parts.capacity.instanceRunning(); // the start's restores are over; later ones come with rebalances
            }
            if (newState == KafkaStreams.State.ERROR) {
                stop.request(EXIT_FATAL);
            } else if (newState == KafkaStreams.State.NOT_RUNNING) {
                stop.request(EXIT_OK);
            }
        });
        LOG.info("Starting shaper {}: {} -> {} (rejected: {})", version(), config.inputTopic(), config.outputTopic(),
                config.rejectedTopic());
        if (parts.admission != null) {
            parts.admission.start();
        }
        parts.capacity.start();
        streams.start();
    }

    public KafkaStreams streams() {
        return streams;
    }

    /** The port of the HTTP server, or -1 when it is off. */
    public int httpPort() {
        return parts.http == null ? -1 : parts.http.port();
    }

    /** This instance's meters, as {@code /metrics} publishes them. */
    public MeterRegistry meterRegistry() {
        return parts.metrics.registry();
    }

    /**
     * Closes Kafka Streams (a clean close commits) and then what runs beside it ({@link InstanceParts}). Idempotent:
     * the shutdown hook and the main thread may both call it, one after the other.
     */
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        health.stopping(); // not ready from here on; the HTTP server keeps answering until the end
        // A clean stop leaves the group, so that its tasks move at once (and a restart takes them back at once)
        // instead of after the session timeout; a static member stays, as its restart takes them back anyway.
        CloseOptions.GroupMembershipOperation membership = config.staticGroupMember()
                ? CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP
                : CloseOptions.GroupMembershipOperation.LEAVE_GROUP;
        if (streams.close(CloseOptions.groupMembershipOperation(membership).withTimeout(CLOSE_TIMEOUT))) {
            LOG.info("Kafka Streams closed cleanly");
        } else {
            LOG.warn("Kafka Streams did not close within {}; the next start restores from the changelogs",
                    CLOSE_TIMEOUT);
        }
        parts.close();
    }

    /** The topics checked as a start needs them (see {@link StartupTopics}), every failure a start failure. */
    private static StartupTopics startupTopics(ShaperConfig config, Properties streamsProps) {
        Map<String, Object> adminSettings = ClientSettings.admin(streamsProps);
        try {
            BrokerCheck.requireAnswer(adminSettings, BrokerCheck.WAIT);
            return StartupTopics.check(config, streamsProps, adminSettings);
        } catch (BrokerCheck.NoBrokerAnswers e) {
            throw new StartupException(e.getMessage() + " (" + StreamsConfig.BOOTSTRAP_SERVERS_CONFIG + ")");
        } catch (StartupTopics.Unfit e) {
            throw new StartupException(e.getMessage());
        } catch (KafkaException e) {
            // A broker answered with an error: authentication, authorisation, TLS
            throw new StartupException("the brokers at " + streamsProps.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " refused: " + e.getMessage());
        }
    }

    /** The shaper cannot start in this environment; the message says why. */
    public static final class StartupException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public StartupException(String message) {
            super(message);
        }
    }
}
