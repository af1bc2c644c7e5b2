package dev.shaper.internals.rules;

import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the rule of a key: the first rule in force that matches, the defaults otherwise. Matching a key against many
 * patterns is not free, so recent answers are remembered (bounded), for the version of the rules they were found in:
 * each look-up reads the {@link LiveRules}' current version (one volatile read) and forgets the answers when it
 * changed, so a new version applies from the next look-up on.
 *
 * <p>Not thread-safe: each stream task has its own (see {@link #copy}); the versions they read are shared.
 */
public final class RuleBook {

    private static final int MAX_REMEMBERED = 10_000;

    private final LiveRules source;
    /** The version the remembered answers belong to. */
    private RuleSet seen;
    private final Map<String, ShapingRule> remembered = remembering();
    private final Map<String, Optional<AdmissionPolicy>> rememberedAdmission = remembering();

    public RuleBook(ShapingRule defaults, List<KeyRule> rules) {
        this(defaults, null, rules);
    }

    /** @param defaultAdmission the admission of keys no rule gives one; null for none */
    public RuleBook(ShapingRule defaults, AdmissionPolicy defaultAdmission, List<KeyRule> rules) {
        this(LiveRules.fixed(new RuleSet(defaults, defaultAdmission, rules)));
    }

    /** A book over the rules in force in {@code source}, which may change while the shaper runs. */
    public RuleBook(LiveRules source) {
        this.source = source;
        this.seen = source.current();
    }

    private static <V> Map<String, V> remembering() {
        return new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > MAX_REMEMBERED;
            }
        };
    }

    /** The version in force, the remembered answers forgotten if it is new. */
    private RuleSet current() {
        RuleSet now = source.current();
        if (now != seen) {
            seen = now;
            remembered.clear();
            rememberedAdmission.clear();
        }
        return now;
    }

    /** A book over the same rules with its own memory of answers, for another task. */
    public RuleBook copy() {
        return new RuleBook(source);
    }

    /** The fastest shaping rate any key can have now, in records per second: the finest release tick it may need. */
    public double fastestRate() {
        RuleSet rules = source.current();
        double fastest = rules.defaults().ratePerSecond();
        for (KeyRule rule : rules.rules()) {
            fastest = Math.max(fastest, rule.shaping().ratePerSecond());
        }
        return fastest;
    }

    /** The rules this book reads, shared with its copies. */
    public LiveRules source() {
        return source;
    }

    /** The version of the rules in force now. */
    public RuleSet version() {
        return source.current();
    }

    /**
     * True if any key can have an admission limit, now or, for rules that change while the shaper runs, later: the
     * admission stage is needed.
     */
    public boolean hasAdmission() {
        return source.isUpdatable() || source.current().hasAdmission();
    }

    /** The admission of {@code admissionKey} (its algorithm and limits), or null if it is not limited. */
    public AdmissionPolicy admissionFor(byte[] admissionKey) {
        RuleSet rules = current();
        if (rules.rules().isEmpty() || !rules.hasAdmission()) {
            return rules.defaultAdmission();
        }
        String key = new String(admissionKey, StandardCharsets.UTF_8);
        Optional<AdmissionPolicy> known = rememberedAdmission.get(key);
        if (known == null) {
            known = Optional.ofNullable(rules.defaultAdmission());
            for (KeyRule rule : rules.rules()) {
                if (rule.matcher().matches(key)) {
                    known = Optional.ofNullable(rule.admission() != null ? rule.admission()
                            : rules.defaultAdmission());
                    break;
                }
            }
            rememberedAdmission.put(key, known);
        }
        return known.orElse(null);
    }

    /** The first rule whose pattern matches {@code key}, or empty when the defaults apply (for diagnostics). */
    public Optional<KeyRule> firstMatch(String key) {
        return source.current().rules().stream().filter(rule -> rule.matcher().matches(key)).findFirst();
    }

    /** The admission of keys no rule gives one; null for none. */
    public AdmissionPolicy defaultAdmission() {
        return source.current().defaultAdmission();
    }

    public ShapingRule defaults() {
        return source.current().defaults();
    }

    /** The rules in force now, first match wins. */
    public List<KeyRule> rules() {
        return source.current().rules();
    }

    public ShapingRule ruleFor(byte[] key) {
        RuleSet rules = current();
        if (rules.rules().isEmpty()) {
            return rules.defaults();
        }
        return ruleFor(rules, new String(key, StandardCharsets.UTF_8));
    }

    public ShapingRule ruleFor(String key) {
        return ruleFor(current(), key);
    }

    private ShapingRule ruleFor(RuleSet rules, String key) {
        ShapingRule known = remembered.get(key);
        if (known == null) {
            known = rules.defaults();
            for (KeyRule rule : rules.rules()) {
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
