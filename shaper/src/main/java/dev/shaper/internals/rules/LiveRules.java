package dev.shaper.internals.rules;

/**
 * The instance's rules in force, shared by every task: a reference to an immutable {@link RuleSet} that a writer
 * (the rules topic's reader) swaps whole. Readers see either the old version or the new one, never a mix, and pay a
 * volatile read per look-up: no lock on the record path.
 */
public final class LiveRules {

    private final boolean updatable;
    private volatile RuleSet current;

    private LiveRules(RuleSet initial, boolean updatable) {
        this.current = initial;
        this.updatable = updatable;
    }

    /** Rules that never change (a rules file, or the defaults alone). */
    public static LiveRules fixed(RuleSet rules) {
        return new LiveRules(rules, false);
    }

    /** Rules that {@link #publish} replaces while the shaper runs. */
    public static LiveRules updatable(RuleSet initial) {
        return new LiveRules(initial, true);
    }

    /** The version in force now. */
    public RuleSet current() {
        return current;
    }

    /** Whether the rules may change while the shaper runs: any key may then get an admission limit later. */
    public boolean isUpdatable() {
        return updatable;
    }

    /** Makes {@code next} the version in force; every task's next look-up sees it. */
    public void publish(RuleSet next) {
        if (!updatable) {
            throw new IllegalStateException("these rules are fixed");
        }
        current = next;
    }
}
