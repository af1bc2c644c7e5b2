package dev.shaper.internals.kafka;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.limits.TopicLimitsReader;
import dev.shaper.internals.wiring.TopologyWiring;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * What the shaper learns of its topics before it starts, and the checks that stop a start on topics it cannot run
 * on: the input, output and rejected topics exist, the input's partitions are those the state was laid out by, and
 * each topic takes the records the shaper will write to it. The start runs them, and so does {@code topics create}
 * after creating what was missing.
 *
 * @param inputPartitions the input topic's partition count
 * @param topicLimits     the largest record each written topic takes
 */
public record StartupTopics(int inputPartitions, TopicLimits topicLimits) {

    /**
     * The input topic's partition count and what the output, rejected and changelog topics take (so that every
     * record's size is decided before it is sent, see {@link TopicLimitsReader}), with a clear error if any of the
     * three topics is missing.
     *
     * @param adminSettings the Admin client's settings among the Kafka Streams settings
     * @throws Unfit when a topic is missing or unsuitable, or the brokers stop answering
     */
    public static StartupTopics check(ShaperConfig config, Properties streamsProps, Map<String, Object> adminSettings) {
        String applicationId = streamsProps.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        try (Admin admin = Admin.create(adminSettings)) {
            int partitions = inputPartitions(admin, config);
            checkStateLayout(admin, config, applicationId, partitions);
            try {
                return new StartupTopics(partitions, TopicLimitsReader.read(admin, 60_000,
                        new TopicLimitsReader.Producer(config.producerMaxRequestSize(),
                                config.producerCompressionType()),
                        config.outputTopic(), config.rejectedTopic(), config.shadowTopic(),
                        ShaperTopology.changelogTopics(applicationId),
                        new TopicLimitsReader.NewChangelog(TopologyWiring.changelogMaxMessageBytes(config))));
            } catch (ExecutionException e) {
                throw new Unfit("cannot read the topics' settings: " + e.getCause());
            } catch (IllegalArgumentException e) {
                throw new Unfit(e.getMessage());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unfit("interrupted while checking topics");
        } catch (TimeoutException e) {
            throw new Unfit("no answer from the brokers at "
                    + streamsProps.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) + " within 60 s");
        }
    }

    private static int inputPartitions(Admin admin, ShaperConfig config)
            throws InterruptedException, TimeoutException {
        List<String> missing = new ArrayList<>();
        int partitions = 0;
        for (String topic : List.of(config.inputTopic(), config.outputTopic(), config.rejectedTopic())) {
            try {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(60, TimeUnit.SECONDS).get(topic);
                if (topic.equals(config.inputTopic())) {
                    partitions = d.partitions().size();
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    missing.add(topic);
                } else {
                    throw new Unfit("cannot describe topic " + topic + ": " + e.getCause());
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new Unfit("topics " + missing + " do not exist; create the input, output and"
                    + " rejected topics (" + ShaperConfig.INPUT_TOPIC_CONFIG + ", "
                    + ShaperConfig.OUTPUT_TOPIC_CONFIG + ", " + ShaperConfig.REJECTED_TOPIC_CONFIG
                    + ") before starting the shaper");
        }
        return partitions;
    }

    /**
     * Refuses a start whose input topic no longer has the partitions the application's state was laid out by (its
     * changelog topics', made at its first start): Kafka Streams would stop on it, and the keys of the new partitions
     * would find no queue of theirs.
     */
    private static void checkStateLayout(Admin admin, ShaperConfig config, String applicationId, int partitions)
            throws InterruptedException, TimeoutException {
        for (String changelog : ShaperTopology.changelogTopics(applicationId)) {
            int laidOut;
            try {
                laidOut = admin.describeTopics(List.of(changelog)).allTopicNames().get(60, TimeUnit.SECONDS)
                        .get(changelog).partitions().size();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    continue; // a first start: Kafka Streams creates it
                }
                throw new Unfit("cannot describe topic " + changelog + ": " + e.getCause());
            }
            if (laidOut != partitions) {
                throw new Unfit("the input topic " + config.inputTopic() + " has " + partitions
                        + " partitions, but this application's state is laid out by " + laidOut + " (its changelog "
                        + changelog + "): the input's partitions changed since it first ran. Kafka Streams cannot"
                        + " run on that state, and the records it queued are in it. See docs/operations.md,"
                        + " \"Adding input partitions\", for how to reset it");
            }
        }
    }

    /** The topics are missing or unsuitable; the message names the topic and what to do. */
    public static final class Unfit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unfit(String message) {
            super(message);
        }
    }
}
