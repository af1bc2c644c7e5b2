package dev.shaper.internals.rules;

import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the rule of a key: the first rule of the rules file that matches, the defaults otherwise.
 * Matching a key against many patterns is not free, so recent answers are remembered (bounded).
 *
 * <p>Not thread-safe: each stream task has its own.
 */
public final class RuleBook {

    private static final int MAX_REMEMBERED = 10_000;

    private final ShapingRule defaults;
    private final AdmissionPolicy defaultAdmission;
    private final List<KeyRule> rules;
    private final Map<String, ShapingRule> remembered = remembering();
    private final Map<String, Optional<AdmissionPolicy>> rememberedAdmission = remembering();

    public RuleBook(ShapingRule defaults, List<KeyRule> rules) {
        this(defaults, null, rules);
    }

    /** @param defaultAdmission the admission of keys no rule gives one; null for none */
    public RuleBook(ShapingRule defaults, AdmissionPolicy defaultAdmission, List<KeyRule> rules) {
        this.defaults = defaults;
        this.defaultAdmission = defaultAdmission;
        this.rules = List.copyOf(rules);
    }

    private static <V> Map<String, V> remembering() {
        return new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MAX_REMEMBERED;
            }
        };
    }

    /** A copy with its own memory of answers, for another task. */
    public RuleBook copy() {
        return new RuleBook(defaults, defaultAdmission, rules);
    }

    /** True if any key can have an admission limit: the stage is needed. */
    public boolean hasAdmission() {
        return defaultAdmission != null || rules.stream().anyMatch(r -> r.admission() != null);
    }

    /** The admission of {@code admissionKey} (its algorithm and limits), or null if it is not limited. */
    public AdmissionPolicy admissionFor(byte[] admissionKey) {
        if (rules.isEmpty()) {
            return defaultAdmission;
        }
        String key = new String(admissionKey, StandardCharsets.UTF_8);
        Optional<AdmissionPolicy> known = rememberedAdmission.get(key);
        if (known == null) {
            known = Optional.ofNullable(defaultAdmission);
            for (KeyRule rule : rules) {
                if (rule.matcher().matches(key)) {
                    known = Optional.ofNullable(rule.admission() != null ? rule.admission() : defaultAdmission);
                    break;
                }
            }
            rememberedAdmission.put(key, known);
        }
        return known.orElse(null);
    }

    /** The first rule whose pattern matches {@code key}, or empty when the defaults apply (for diagnostics). */
    public Optional<KeyRule> firstMatch(String key) {
        return rules.stream().filter(rule -> rule.matcher().matches(key)).findFirst();
    }

    /** The admission of keys no rule gives one; null for none. */
    public AdmissionPolicy defaultAdmission() {
        return defaultAdmission;
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
