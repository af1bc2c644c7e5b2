package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.cluster.InputPartitionWatch;
import dev.shaper.internals.cluster.LiveInstanceCounter;
import dev.shaper.internals.cluster.OutputTopicsWatch;
import dev.shaper.internals.config.StartSummary;
import dev.shaper.internals.http.OperationsServer;
import dev.shaper.internals.http.StreamsHealth;
import dev.shaper.internals.kafka.ClientSettings;
import dev.shaper.internals.kafka.StartupTopics;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.LiveRules;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RuleSet;
import dev.shaper.internals.rules.RulesTopicLog;
import dev.shaper.internals.rules.RulesTopicReader;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one shaper instance from its checked settings, part by part in the order they depend on each other: the
 * metrics, the Redis client, the input topic's watch, the rules (the file's, then the rules topic's), the admission,
 * the capacity, the topology and Kafka Streams (not started), its health, the watch of the topics it writes to, and
 * the HTTP server. A part that cannot be made closes the ones made before it.
 */
public final class InstanceWiring {

    private static final Logger LOG = LoggerFactory.getLogger(InstanceWiring.class);
    /** How long a start waits for the rules topic to be read to its end. */
    private static final Duration RULES_TOPIC_READ = Duration.ofSeconds(60);
    /** How long a failed start waits for Kafka Streams, made but never started, to close. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private InstanceWiring() {
    }

    /** What the wiring made: Kafka Streams, not started; its health; what runs beside it. */
    public record Instance(KafkaStreams streams, StreamsHealth health, InstanceParts parts) {
    }

    /** The rules topic cannot be read: the start cannot go on, for a reason of the cluster, not of the settings. */
    public static final class RulesTopicUnreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RulesTopicUnreadable(String message) {
            super(message);
        }
    }

    /**
     * Makes the instance.
     *
     * @param fileRules      the rules file's rules, read once
     * @param streamsProps   the Kafka Streams settings, checked; {@code poll.ms} follows the rules topic's rules too
     * @param topics         the topics as the start found them
     * @param self           this instance's {@code application.server}, or null
     * @param onTopicGivenUp run when a topic the instance writes to stayed missing for
     *                       {@code shaper.topics.missing.stop.ms}
     * @throws RulesTopicUnreadable when the rules topic is missing or cannot be read to its end
     */
    public static Instance wire(ShaperConfig config, RuleSet fileRules, Properties streamsProps,
                                StartupTopics topics, HostInfo self, Runnable onTopicGivenUp) {
        int partitions = topics.inputPartitions();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ShaperMetrics metrics = new ShaperMetrics(registry, System::currentTimeMillis);
        metrics.bindJvmAndProcess();
        InstanceParts parts = new InstanceParts();
        parts.metrics = metrics;
        KafkaStreams streams = null;
        TaskBacklogs backlogs = new TaskBacklogs();
        Map<String, Object> adminSettings = ClientSettings.admin(streamsProps);
        Map<String, Object> consumerSettings = ClientSettings.among(streamsProps, ConsumerConfig.configNames());
        String applicationId = streamsProps.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        try {
            parts.redis = AdmissionWiring.redisClient(config); // one per instance: admission's and the capacity's
            InputPartitionWatch inputWatch = InputPartitionWatch.start(adminSettings, config.inputTopic(), partitions,
                    applicationId);
            parts.inputWatch = inputWatch;
            LiveRules liveRules = LiveRules.fixed(fileRules);
            if (config.rulesTopic() != null) {
                liveRules = LiveRules.updatable(fileRules);
                parts.rulesReader = new RulesTopicReader(consumerSettings, config.rulesTopic(), fileRules, liveRules);
                startReading(parts.rulesReader, config);
                metrics.bindRulesTopic(parts.rulesReader);
                // The topic's rules may be faster than the file's: the idle stream thread must wake for their ticks
                usePollMsFor(new RuleBook(liveRules), config, streamsProps);
            }
            RuleBook rules = new RuleBook(liveRules);
            StartSummary.lines(config, partitions, rules.hasAdmission()).forEach(LOG::info);
            if (config.allInShadow()) {
                LOG.warn("shaper.mode=shadow: no rule is enforced; every record passes at once, and what the rules"
                        + " would have done is {}", config.shadowTopic() == null
                        ? "counted in the metrics only (mode=\"shadow\"; no shaper.shadow.topic)"
                        : "counted (mode=\"shadow\") and reported on " + config.shadowTopic());
            }
            AdmissionController admission = null;
            if (rules.hasAdmission()) {
                parts.instances = new LiveInstanceCounter(adminSettings, applicationId,
                        config.redisTimeout().multipliedBy(20));
                admission = AdmissionWiring.forConfig(config, parts.redis, parts.instances, partitions);
                parts.admission = admission;
            }
            CapacityWiring.Capacity capacity = CapacityWiring.forConfig(config, parts.redis, applicationId,
                    partitions, consumerSettings);
            parts.capacity = capacity;
            if (capacity.coordinator() != null) {
                metrics.bindCapacityCoordinator(capacity.coordinator());
            }
            ClosedLoop loop = capacity.loop();
            if (loop != null) {
                metrics.bindClosedLoop(loop, capacity.feedback());
            }
            streams = new KafkaStreams(TopologyWiring.build(config, new TopologyWiring.Parts(rules, partitions,
                    admission, metrics, topics.topicLimits(), capacity.pool(), backlogs, capacity.restores(),
                    inputWatch)), streamsProps);
            metrics.bindStreams(streams);
            if (admission != null) {
                metrics.bindAdmission(admission);
            }
            StreamsHealth health = new StreamsHealth();
            health.watch(streams);
            if (admission != null) {
                health.watchAdmission(admission);
            }
            health.notReadyWhile(inputWatch::closedBecause);
            KafkaStreams pausable = streams;
            OutputTopicsWatch outputWatch = OutputTopicsWatch.start(adminSettings,
                    List.of(config.outputTopic(), config.rejectedTopic()),
                    TopologyWiring.changelogTopics(applicationId), pausable::pause, pausable::resume,
                    onTopicGivenUp, config.topicsMissingStop());
            parts.outputWatch = outputWatch;
            health.notReadyWhile(outputWatch::problem);
            if (config.httpPort() >= 0) {
                try {
                    parts.http = OperationsServer.start(config.httpPort(), registry, health, streams,
                            TopologyWiring.KEY_STATE_STORE, rules.copy(), config.admissionKeyHeader(), self,
                            partitions, backlogs, loop == null ? null : loop::status, capacity.holding());
                } catch (IOException e) {
                    throw new ConfigException(ShaperConfig.HTTP_PORT_CONFIG, config.httpPort(),
                            "cannot listen on this port (" + e.getMessage() + "); expected a free port, 0 for any"
                                    + " free port, or -1 for no HTTP server");
                }
            }
            return new Instance(streams, health, parts);
        } catch (RuntimeException e) {
            // Nothing started yet, but threads and connections exist: release them before reporting the error.
            if (streams != null) {
                streams.close(CLOSE_TIMEOUT);
            }
            parts.close();
            throw e;
        }
    }

    /**
     * Sets {@code poll.ms} for the fastest of {@code rules}, unless the settings set it: an idle stream thread must
     * wake for each release tick of the fastest key.
     */
    public static void usePollMsFor(RuleBook rules, ShaperConfig config, Properties streamsProps) {
        Long pollMs = config.defaultPollMs(rules.fastestRate());
        if (pollMs != null) {
            streamsProps.put(StreamsConfig.POLL_MS_CONFIG, Long.toString(pollMs));
        }
    }

    /**
     * Reads the rules topic to its end before Kafka Streams starts, so that no record is shaped by rules it has
     * replaced; a topic that is missing or cannot be read stops the start like the other topics.
     */
    private static void startReading(RulesTopicReader rulesReader, ShaperConfig config) {
        try {
            rulesReader.start(RULES_TOPIC_READ);
        } catch (RulesTopicLog.MissingTopicException e) {
            throw new RulesTopicUnreadable(e.getMessage() + " (" + ShaperConfig.RULES_TOPIC_CONFIG + ")");
        } catch (KafkaException e) {
            throw new RulesTopicUnreadable("cannot read the rules topic " + config.rulesTopic() + " ("
                    + ShaperConfig.RULES_TOPIC_CONFIG + "): " + e.getMessage());
        }
    }
}
