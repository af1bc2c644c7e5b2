package dev.shaper.internals.shaping;

import dev.shaper.RejectReason;

/**
 * The leaky bucket of one key as virtual scheduling (GCRA): every record gets the virtual time at which
 * it may leave, and consecutive records of a key are spaced {@code cost / rate} apart.
 *
 * <p>Pure arithmetic on immutable values, with no Kafka in sight, so the algorithm is testable alone.
 * Times are nanoseconds of the task's {@link VirtualClock}.
 */
public final class LeakyBucket {

    /**
     * The clock is read in whole milliseconds, so records that arrive in the same millisecond look
     * simultaneous. A key may run this much ahead of its schedule, which lets a high rate pass
     * {@code rate x 1 ms} records in one millisecond instead of queuing all but the first.
     */
    public static final long ARRIVAL_TOLERANCE_NANOS = 1_000_000L;

    private LeakyBucket() {
    }

    /**
     * Decides what happens to a record of {@code cost} units that arrives at virtual time {@code nowNanos}.
     * (Queued bytes are the caller's to count: only it knows the stored form.)
     *
     * @param mayPassNow false when something other than this key (the total rate) holds the record back
     */
    public static Arrival arrive(KeyState state, ShapingRule rule, long nowNanos, long cost, boolean mayPassNow) {
        return arrive(state, rule, nowNanos, cost, mayPassNow, 0);
    }

    /**
     * Like {@link #arrive(KeyState, ShapingRule, long, long, boolean)}, for a record that also waits behind the
     * total rate: a record that would have to queue leaves no sooner than {@code capWaitNanos} from now, and its
     * wait, bounded by the key's {@code max.delay.ms}, is the longer of that and its key's own.
     */
    public static Arrival arrive(KeyState state, ShapingRule rule, long nowNanos, long cost, boolean mayPassNow,
                                 long capWaitNanos) {
        return arrive(state, rule, nowNanos, cost, mayPassNow, capWaitNanos, 0);
    }

    /**
     * Like {@link #arrive(KeyState, ShapingRule, long, long, boolean, long)}, for a record that waited
     * {@code waitedNanos} already before it arrived (since its timestamp): its wait here may be no longer than what its
     * key's {@code max.delay.ms} leaves of that.
     */
    public static Arrival arrive(KeyState state, ShapingRule rule, long nowNanos, long cost, boolean mayPassNow,
                                 long capWaitNanos, long waitedNanos) {
        long due = Math.max(state.tatNanos(), nowNanos);
        long nextTat = saturatedAdd(due, rule.intervalNanos(cost));
        if (state.queuedRecords() == 0 && mayPassNow && due - ARRIVAL_TOLERANCE_NANOS <= nowNanos
                && state.releaseTatNanos() <= saturatedAdd(nowNanos, ARRIVAL_TOLERANCE_NANOS)) { // MIN_VALUE: none
            // A record that leaves now is a release too: it must be on the release side's schedule (the key's
            // last queued record may have left late, after the dues ran out), and the release side continues
            // from its slot. Otherwise it queues, due now, and the release side lets it go on schedule.
            return new Arrival.Pass(new KeyState(nextTat, 0, 0, 0, nextTat));
        }
        if (state.queuedRecords() >= rule.maxQueue()) {
            long headDue = state.tatNanos() - rule.intervalNanos(state.queuedUnits());
            return new Arrival.Reject(RejectReason.QUEUE_FULL, nanosToRetryMs(headDue - nowNanos),
                    "queue of this key holds " + state.queuedRecords() + " records, the most allowed is "
                            + rule.maxQueue());
        }
        long keyWait = due - nowNanos;
        long wait = Math.max(keyWait, capWaitNanos);
        long maxDelayNanos = rule.maxDelayMs() * 1_000_000L;
        if (wait > maxDelayNanos - waitedNanos) {
            // A retry starts its wait afresh: it is accepted once the wait here is within the bound.
            return new Arrival.Reject(RejectReason.DELAY_EXCEEDED, nanosToRetryMs(wait - maxDelayNanos),
                    "record would wait " + nanosToRetryMs(wait) + " ms" + (capWaitNanos > keyWait
                            ? " behind the total rate's backlog" : "") + (waitedNanos > 0 ? ", after "
                            + nanosToRetryMs(waitedNanos) + " ms since its timestamp" : "") + ", the most allowed is "
                            + rule.maxDelayMs() + " ms");
        }
        return new Arrival.Enqueue(due, state.withEnqueued(nextTat, cost));
    }

    /**
     * The release side: whether a queued record due at {@code dueNanos} may leave at {@code nowNanos}, and the key's
     * state if it does ({@code null} if it must wait for a later tick).
     *
     * <p>Dues alone would let a key release everything that fell due while the release was late in one go. So
     * releases also pass a GCRA of their own: a release is allowed when the key's release schedule is at most
     * {@code toleranceNanos} (a tick) ahead of now, and each release moves that schedule by {@code cost / rate}. The
     * schedule remembers {@link ReleasePace#jitterMemoryNanos} of lateness, made up at once; while a record leaves
     * more than a tick after its due, a release moves the schedule by {@code cost / (rate + 1)}, so the key makes up
     * the rest one unit a second faster than its rate (see {@link ReleasePace}). The key's {@link ReleaseWindow},
     * which the caller asks first, keeps all of it within {@link ReleasePace#maxInOneSecond}.
     */
    public static KeyState release(KeyState state, ShapingRule rule, long nowNanos, long dueNanos,
                                   long toleranceNanos, long cost) {
        return release(state, rule, nowNanos, dueNanos, toleranceNanos, 0, Long.MAX_VALUE, cost);
    }

    /**
     * Like {@link #release(KeyState, ShapingRule, long, long, long, long)}, making up at once at least
     * {@code observedLateNanos}: the lateness the task's ticks routinely show (see {@link StallMeter}); and making
     * up nothing of a record more than {@code owedMaxNanos} ({@code shaper.shaping.catchup.max.ms}) behind its due:
     * a key that fell that far behind resumes at its rate, and the time is forgotten.
     */
    public static KeyState release(KeyState state, ShapingRule rule, long nowNanos, long dueNanos,
                                   long toleranceNanos, long observedLateNanos, long owedMaxNanos, long cost) {
        if (state.releaseTatNanos() > nowNanos + toleranceNanos) { // not "tat - tolerance": MIN_VALUE would wrap
            return null;
        }
        long memory = Math.max(ReleasePace.jitterMemoryNanos(rule), observedLateNanos);
        long interval = rule.intervalNanos(cost);
        long late = nowNanos - dueNanos;
        boolean behind = late > toleranceNanos && late <= owedMaxNanos;
        long step = behind ? ReleasePace.catchUpIntervalNanos(rule, cost) : interval;
        long next = saturatedAdd(Math.max(state.releaseTatNanos(), nowNanos - memory), step);
        return state.withReleased(cost).withReleaseTat(next);
    }

    /**
     * The release side of a key whose rule is in shadow: a queued record leaves when due, without the rate's pacing
     * (the records of the key's enforced past, and those queued behind them, see {@link ShadowBucket#behindQueue}).
     */
    public static KeyState releaseUnpaced(KeyState state, long cost) {
        return state.withReleased(cost);
    }

    /**
     * The key's state once one of its queued records, costing {@code cost}, left the queue without being released
     * (it expired): the release schedule does not move, since nothing was sent.
     */
    public static KeyState expire(KeyState state, long cost) {
        return state.withReleased(cost);
    }

    /** Whole milliseconds, rounded up, never below one: a retry sooner than the wait cannot succeed. */
    public static long nanosToRetryMs(long nanos) {
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} where the sum would overflow (times at the end of time stay there). */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
