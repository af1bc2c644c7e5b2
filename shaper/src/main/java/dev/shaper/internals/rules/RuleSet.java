package dev.shaper.internals.rules;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;
import java.util.List;

/**
 * One version of the rules in force: the defaults and the per-key rules in the order they are matched. Immutable,
 * so that every stream thread can read the same version while a new one is built (see {@link LiveRules}).
 */
public final class RuleSet {

    private final ShapingRule defaults;
    private final AdmissionPolicy defaultAdmission;
    private final AdmissionAlgorithm defaultAlgorithm;
    private final List<KeyRule> rules;
    private final boolean hasAdmission;
    /** True under {@code shaper.mode=shadow}: every rule and the defaults are in shadow, whatever their mode says. */
    private final boolean allShadow;

    /**
     * @param defaultAdmission the admission of keys no rule gives one; null for none. Its algorithm (token-bucket
     *                         without one) is that of rules that set admission limits but no admission.algorithm.
     */
    public RuleSet(ShapingRule defaults, AdmissionPolicy defaultAdmission, List<KeyRule> rules) {
        this(defaults, defaultAdmission,
                defaultAdmission != null ? defaultAdmission.algorithm() : AdmissionAlgorithm.TOKEN_BUCKET, rules);
    }

    /**
     * @param defaultAdmission the admission of keys no rule gives one; null for none
     * @param defaultAlgorithm the algorithm of rules that set admission limits but no admission.algorithm
     *                         ({@code shaper.admission.algorithm})
     */
    public RuleSet(ShapingRule defaults, AdmissionPolicy defaultAdmission, AdmissionAlgorithm defaultAlgorithm,
                   List<KeyRule> rules) {
        this(defaults, defaultAdmission, defaultAlgorithm, rules, false);
    }

    private RuleSet(ShapingRule defaults, AdmissionPolicy defaultAdmission, AdmissionAlgorithm defaultAlgorithm,
                    List<KeyRule> rules, boolean allShadow) {
        this.allShadow = allShadow;
        this.defaults = allShadow ? defaults.withShadow(true) : defaults;
        this.defaultAdmission = allShadow && defaultAdmission != null ? defaultAdmission.withShadow(true)
                : defaultAdmission;
        this.defaultAlgorithm = defaultAlgorithm;
        this.rules = allShadow ? rules.stream().map(RuleSet::inShadow).toList() : List.copyOf(rules);
        this.hasAdmission = defaultAdmission != null || this.rules.stream().anyMatch(r -> r.admission() != null);
    }

    public ShapingRule defaults() {
        return defaults;
    }

    /** The admission of keys no rule gives one (its algorithm and limits); null for none. */
    public AdmissionPolicy defaultAdmission() {
        return defaultAdmission;
    }

    /** The algorithm of rules that set admission limits but no admission.algorithm. */
    public AdmissionAlgorithm defaultAlgorithm() {
        return defaultAlgorithm;
    }

    /** The rules, first match wins. */
    public List<KeyRule> rules() {
        return rules;
    }

    /** True if some key has an admission limit in this version. */
    public boolean hasAdmission() {
        return hasAdmission;
    }

    /** The same defaults with other rules (in shadow too if these are all in shadow). */
    public RuleSet withRules(List<KeyRule> newRules) {
        return new RuleSet(defaults, defaultAdmission, defaultAlgorithm, newRules, allShadow);
    }

    /**
     * These rules with everything in shadow, and every rule added later by {@link #withRules} too: the whole
     * application in shadow ({@code shaper.mode=shadow}) whatever each rule's own mode says.
     */
    public RuleSet allInShadow() {
        return new RuleSet(defaults, defaultAdmission, defaultAlgorithm, rules, true);
    }

    /** True when every rule is in shadow ({@code shaper.mode=shadow}). */
    public boolean allShadow() {
        return allShadow;
    }

    private static KeyRule inShadow(KeyRule rule) {
        return new KeyRule(rule.matcher(), rule.shaping().withShadow(true),
                rule.admission() == null ? null : rule.admission().withShadow(true));
    }
}
