package dev.shaper.internals.rules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules a rules topic holds, by id, as its records left them: the latest record of each id wins, a delete
 * removes the id. Matched in {@code order}, ties by id. Not thread-safe: the topic's reader owns it.
 */
public final class TopicRules {

    /** Lower order first, then id: the order rules are matched in. */
    public static final Comparator<RuleRecord.Put> MATCH_ORDER = Comparator.comparingInt(RuleRecord.Put::order)
            .thenComparing(RuleRecord.Put::id);

    private final Map<String, RuleRecord.Put> byId = new HashMap<>();

    /** Applies one record's change; true if the rules changed. */
    public boolean apply(RuleRecord.Change change) {
        if (change instanceof RuleRecord.Put put) {
            RuleRecord.Put before = byId.put(put.id(), put);
            return !put.sameAs(before);
        }
        return byId.remove(change.id()) != null;
    }

    /** The rules in the order they are matched. */
    public List<RuleRecord.Put> ordered() {
        List<RuleRecord.Put> rules = new ArrayList<>(byId.values());
        rules.sort(MATCH_ORDER);
        return rules;
    }

    /** The rules in the order they are matched, as the rule book takes them. */
    public List<KeyRule> keyRules() {
        return ordered().stream().map(RuleRecord.Put::rule).toList();
    }

    /** The rule {@code id}, or null. */
    public RuleRecord.Put get(String id) {
        return byId.get(id);
    }

    public int size() {
        return byId.size();
    }
}
