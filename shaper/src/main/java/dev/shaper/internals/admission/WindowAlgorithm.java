package dev.shaper.internals.admission;

import java.util.List;

/**
 * What the two window algorithms share: a counter per aligned window of each limit's length, the same counters in
 * Redis ({@code shaper:win:{<key>}:<window ms>:<window index>}), so that a rule switching between them keeps its
 * counts, and no burst: a limit admits whole units, at most its amount per window.
 */
abstract class WindowAlgorithm extends ScriptedAlgorithm {

    private final boolean sliding;

    WindowAlgorithm(String configName, String scriptResource, boolean sliding) {
        super(configName, "shaper:win:", scriptResource);
        this.sliding = sliding;
    }

    @Override
    public final boolean hasBurst() {
        return false;
    }

    /** Two limits of one length would count in the same counters, and the smaller amount would always bind. */
    @Override
    public final void check(List<AdmissionLimit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (limits.get(i).periodMillis() == limits.get(j).periodMillis()) {
                    throw new IllegalArgumentException("two " + this + " limits of the same period "
                            + AdmissionLimit.formatPeriod(limits.get(i).periodMillis()));
                }
            }
        }
    }

    /** The amount divided, never below one unit (nor the record's cost); the burst is the amount. */
    @Override
    public final AdmissionLimit share(AdmissionLimit limit, int instances, double minCapacity) {
        double max = Math.max(Math.max(1, minCapacity), limit.amount() / Math.max(1, instances));
        return new AdmissionLimit(max, limit.periodMillis(), max);
    }

    @Override
    public final LimitState newState(AdmissionLimit limit, long nowNanos) {
        return new WindowCounter(limit.periodNanos(), sliding, nowNanos);
    }

    /** A window of the same length keeps its counts, read the other way after a switch between the two. */
    @Override
    public final LimitState fit(LimitState current, AdmissionLimit limit, long nowNanos) {
        if (current instanceof WindowCounter window && window.periodNanos == limit.periodNanos()) {
            return window.sliding == sliding ? window : window.readAs(sliding);
        }
        return newState(limit, nowNanos);
    }

    /** The most one window admits, and the window's length in ms. */
    @Override
    public final String[] limitArgs(AdmissionLimit limit) {
        return new String[] {AdmissionLimit.number(limit.amount()), Long.toString(limit.periodMillis())};
    }
}
