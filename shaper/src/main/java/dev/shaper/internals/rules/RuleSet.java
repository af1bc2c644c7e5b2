package dev.shaper.internals.rules;

import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import java.util.List;

/**
 * One version of the rules in force: the defaults and the per-key rules in the order they are matched. Immutable,
 * so that every stream thread can read the same version while a new one is built (see {@link LiveRules}).
 */
public final class RuleSet {

    private final ShapingRule defaults;
    private final AdmissionRule defaultAdmission;
    private final List<KeyRule> rules;
    private final boolean hasAdmission;

    /** @param defaultAdmission the admission of keys no rule gives one; null for none */
    public RuleSet(ShapingRule defaults, AdmissionRule defaultAdmission, List<KeyRule> rules) {
        this.defaults = defaults;
        this.defaultAdmission = defaultAdmission;
        this.rules = List.copyOf(rules);
        this.hasAdmission = defaultAdmission != null || this.rules.stream().anyMatch(r -> r.admission() != null);
    }

    public ShapingRule defaults() {
        return defaults;
    }

    /** The admission bucket of keys no rule gives one; null for none. */
    public AdmissionRule defaultAdmission() {
        return defaultAdmission;
    }

    /** The rules, first match wins. */
    public List<KeyRule> rules() {
        return rules;
    }

    /** True if some key has an admission limit in this version. */
    public boolean hasAdmission() {
        return hasAdmission;
    }

    /** The same defaults with other rules. */
    public RuleSet withRules(List<KeyRule> newRules) {
        return new RuleSet(defaults, defaultAdmission, newRules);
    }
}
