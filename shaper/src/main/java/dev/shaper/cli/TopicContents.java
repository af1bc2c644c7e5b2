package dev.shaper.cli;

import dev.shaper.internals.rules.RuleRecord;
import dev.shaper.internals.rules.TopicRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What the rules topic holds, as a shaper reading it would take it: per id the latest rule, and the ids whose latest
 * record a shaper refuses (it keeps the rule's previous version, or none).
 */
final class TopicContents {

    private final TopicRules rules = new TopicRules();
    /** Ids whose latest record is refused, with why. */
    private final Map<String, String> refused = new TreeMap<>();
    /** Records whose key is no rule id, with why. */
    private final List<String> unkeyed = new ArrayList<>();

    void add(ConsumerRecord<byte[], byte[]> record) {
        try {
            RuleRecord.Change change = RuleRecord.parse(record.key(), record.value(), RulesTopicClient.DEFAULTS, null);
            rules.apply(change);
            refused.remove(change.id());
        } catch (RuleRecord.InvalidRuleException e) {
            if (e.id() == null) {
                unkeyed.add("offset " + record.partition() + "@" + record.offset() + ": " + e.getMessage());
            } else {
                refused.put(e.id(), e.getMessage());
            }
        }
    }

    /** The rules in the order a shaper matches them (after its rules file's). */
    List<RuleRecord.Put> rules() {
        return rules.ordered();
    }

    /** The rule {@code id}, or null. */
    RuleRecord.Put rule(String id) {
        return rules.get(id);
    }

    /** Ids whose latest record a shaper refuses, with why. */
    Map<String, String> refused() {
        return refused;
    }

    /** Records without a usable rule id, with where and why. */
    List<String> unkeyed() {
        return unkeyed;
    }

    /** Whether the topic holds anything for {@code id} that a delete would remove. */
    boolean holds(String id) {
        return rules.get(id) != null || refused.containsKey(id);
    }
}
