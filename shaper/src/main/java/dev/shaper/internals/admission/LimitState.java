package dev.shaper.internals.admission;

/**
 * One limit's in-process state for one admission key, as its {@link AdmissionAlgorithm} keeps it: a token bucket's
 * balance, a window's counts, a theoretical arrival time. Times are nanoseconds of the caller's clock, so tests
 * advance time instead of sleeping. Not thread-safe; its owner ({@link LimitStates}) guards it.
 *
 * <p>Every method takes the limit it serves now (a local share of the rule's limit, or the limit itself): the state
 * holds only what changes per record.
 */
interface LimitState {

    /** A wait that never ends: a cost the limit can never admit. */
    long NEVER = Long.MAX_VALUE;

    /** What the limit has left now, in units: below zero when more was charged than it allows (a debt). */
    double left(AdmissionLimit limit, long nowNanos);

    /**
     * How long until {@code cost} fits, if nothing more is counted meanwhile, given {@code left}, what
     * {@link #left} says now: 0 if it fits now; {@link #NEVER} if it never will, where the algorithm can tell (a
     * window, for a cost above its amount). By default, for a state that gives back the limit's rate per second:
     * until what is missing has come back, which a cost above the burst never finds, so the caller compares the cost
     * with the burst first.
     */
    default long waitNanos(AdmissionLimit limit, double cost, double left, long nowNanos) {
        return left >= cost ? 0 : nanos((cost - left) / limit.ratePerSecond());
    }

    /** Counts {@code cost} whatever is left (what was admitted elsewhere, or after every limit allowed it). */
    void charge(AdmissionLimit limit, double cost, long nowNanos);

    /** True when the state says nothing a fresh one would not: forgetting it changes no decision. */
    boolean isUnused(AdmissionLimit limit, long nowNanos);

    /**
     * Takes a state reported elsewhere (Redis's answer, or a mirror's snapshot): what the limit had left there and
     * the algorithm's own reply values ({@link #detail}), divided by {@code divisor} (1 for a mirror, the live
     * instances for a local share), less {@code pendingHere}, what was admitted here and is not in it yet.
     */
    void adopt(AdmissionLimit limit, double left, double[] detail, double divisor, double pendingHere, long nowNanos);

    /** The algorithm's own values beyond what is left, as its script reports them: by default none. */
    default double[] detail(long nowNanos) {
        return new double[0];
    }

    /** Seconds as whole nanoseconds, rounded up and at least 1; {@link #NEVER} beyond a long. */
    static long nanos(double seconds) {
        double nanos = Math.ceil(seconds * 1e9);
        return nanos >= Long.MAX_VALUE ? NEVER : Math.max(1, (long) nanos);
    }
}
