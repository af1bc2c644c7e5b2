package dev.shaper.internals.rules;

import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the rule of a key: the first rule of the rules file that matches, the defaults otherwise.
 * Matching a key against many patterns is not free, so recent answers are remembered (bounded).
 *
 * <p>Not thread-safe: each stream task has its own.
 */
public final class RuleBook {

    private static final int MAX_REMEMBERED = 10_000;

    private final ShapingRule defaults;
    private final List<KeyRule> rules;
    private final Map<String, ShapingRule> remembered = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ShapingRule> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };

    public RuleBook(ShapingRule defaults, List<KeyRule> rules) {
        this.defaults = defaults;
        this.rules = List.copyOf(rules);
    }

    /** A copy with its own memory of answers, for another task. */
    public RuleBook copy() {
        return new RuleBook(defaults, rules);
    }

    public ShapingRule defaults() {
        return defaults;
    }

    public List<KeyRule> rules() {
        return rules;
    }

    public ShapingRule ruleFor(byte[] key) {
        if (rules.isEmpty()) {
            return defaults;
        }
        return ruleFor(new String(key, StandardCharsets.UTF_8));
    }

    public ShapingRule ruleFor(String key) {
        ShapingRule known = remembered.get(key);
        if (known == null) {
            known = defaults;
            for (KeyRule rule : rules) {
                if (rule.matcher().matches(key)) {
                    known = rule.shaping();
                    break;
                }
            }
            remembered.put(key, known);
        }
        return known;
    }
}
