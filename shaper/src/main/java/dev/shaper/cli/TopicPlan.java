package dev.shaper.cli;

import dev.shaper.ShaperConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The topics a shaper's settings name, each with the partitions and topic settings the documentation gives it:
 * the shaped topic stamped with the time the broker wrote a record (its release), the rejected and shadow topics
 * never compacted and kept a week, the rules topic compacted on one partition.
 */
final class TopicPlan {

    /** A week, in milliseconds: how long the rejected and shadow topics keep records for clients that retry. */
    static final String WEEK_MS = "604800000";

    /**
     * One topic to have.
     *
     * @param setting the shaper setting that names it
     */
    record Topic(String name, String setting, int partitions, Map<String, String> configs) {
    }

    private TopicPlan() {
    }

    /**
     * The topics of {@code config}: input and shaped of {@code partitions} each, the others of the partitions their
     * use needs.
     *
     * @param replicationFactor the replicas of each new topic, or empty for the brokers' default
     */
    static List<Topic> of(ShaperConfig config, int partitions, int rejectedPartitions,
                          Optional<Short> replicationFactor) {
        // Two in-sync replicas of three survive one broker's loss without losing an acknowledged record.
        Map<String, String> durable = replicationFactor.filter(r -> r >= 3).isPresent()
                ? Map.of("min.insync.replicas", "2") : Map.of();
        List<Topic> topics = new ArrayList<>();
        topics.add(new Topic(config.inputTopic(), ShaperConfig.INPUT_TOPIC_CONFIG, partitions, durable));
        topics.add(new Topic(config.outputTopic(), ShaperConfig.OUTPUT_TOPIC_CONFIG, partitions,
                with(durable, Map.of("message.timestamp.type", "LogAppendTime"))));
        Map<String, String> keptAWeek = with(durable, Map.of("cleanup.policy", "delete", "retention.ms", WEEK_MS));
        topics.add(new Topic(config.rejectedTopic(), ShaperConfig.REJECTED_TOPIC_CONFIG, rejectedPartitions,
                keptAWeek));
        if (config.shadowTopic() != null) {
            topics.add(new Topic(config.shadowTopic(), ShaperConfig.SHADOW_TOPIC_CONFIG, rejectedPartitions,
                    keptAWeek));
        }
        if (config.rulesTopic() != null) {
            topics.add(new Topic(config.rulesTopic(), ShaperConfig.RULES_TOPIC_CONFIG, 1,
                    with(durable, Map.of("cleanup.policy", "compact"))));
        }
        if (config.feedbackTopic() != null) {
            topics.add(new Topic(config.feedbackTopic(), ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, 1, durable));
        }
        return topics;
    }

    private static Map<String, String> with(Map<String, String> base, Map<String, String> more) {
        Map<String, String> all = new java.util.TreeMap<>(base);
        all.putAll(more);
        return Map.copyOf(all);
    }
}
