package dev.shaper.internals.shaping;

/**
 * The leaky bucket of a key whose rule is in shadow: what it would have decided, while its records pass at once.
 *
 * <p>Nothing of the key is queued, so the would-be queue is read from the key's schedule alone: while its theoretical
 * arrival time is ahead of now, the units due between now and it are what an enforced bucket would still hold (in
 * units: the same as records when each costs one). The decision is then the enforced bucket's own ({@link LeakyBucket#arrive}),
 * and the key's state keeps only that schedule, so that it is stored, restored and forgotten as any key's is, and a
 * switch to enforce continues from it.
 */
public final class ShadowBucket {

    private ShadowBucket() {
    }

    /**
     * What the key's bucket would decide for a record of {@code cost} arriving at {@code nowNanos}; a pass or an
     * enqueue carries the key's next state, with nothing queued.
     *
     * @param state the key's state: only its schedule (theoretical arrival time) is read
     */
    public static Arrival arrive(KeyState state, ShapingRule rule, long nowNanos, long cost) {
        long waiting = wouldBeQueuedUnits(state, rule, nowNanos);
        KeyState wouldBe = new KeyState(state.tatNanos(), (int) Math.min(Integer.MAX_VALUE, waiting), waiting, 0);
        Arrival arrival = LeakyBucket.arrive(wouldBe, rule, nowNanos, cost, true);
        if (arrival instanceof Arrival.Enqueue enqueue) {
            return new Arrival.Enqueue(enqueue.dueNanos(), new KeyState(enqueue.state().tatNanos(), 0, 0, 0));
        }
        return arrival;
    }

    /**
     * The units an enforced bucket would still hold at {@code nowNanos}: its would-be dues are one unit apart and the
     * last is one unit before the theoretical arrival time; those due within the arrival tolerance of now have left.
     */
    static long wouldBeQueuedUnits(KeyState state, ShapingRule rule, long nowNanos) {
        if (state.tatNanos() == Long.MIN_VALUE) {
            return 0;
        }
        long ahead = state.tatNanos() - nowNanos - LeakyBucket.ARRIVAL_TOLERANCE_NANOS;
        long unit = rule.intervalNanos(1);
        return ahead <= 0 ? 0 : (ahead - 1) / unit; // dues strictly after now + tolerance, one unit apart
    }

    /**
     * A record of a key whose rule went into shadow while some of its records still waited: it joins the queue
     * behind them, due in the slot after the last (its key's theoretical arrival time), so that the key's records
     * keep their order; the records that join so are not spaced from each other (a rule in shadow paces nothing:
     * see {@link LeakyBucket#releaseUnpaced}).
     */
    public static Arrival.Enqueue behindQueue(KeyState state, long nowNanos, long cost) {
        long due = Math.max(state.tatNanos(), nowNanos);
        // Dues of one key stay strictly increasing: they are the key's place in the schedule store.
        return new Arrival.Enqueue(due, state.withEnqueued(LeakyBucket.saturatedAdd(due,
                ShapingRule.MIN_INTERVAL_NANOS), cost));
    }
}
