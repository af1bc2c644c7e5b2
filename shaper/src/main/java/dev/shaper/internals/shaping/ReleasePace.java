package dev.shaper.internals.shaping;

/**
 * How the release of queued records keeps each key at its exact rate and smooth, whatever the stream thread does:
 * the tick that follows the rates in force, how much lateness a key makes up at once, how fast it makes up more,
 * and the bounds on a key's releases per second that follow.
 *
 * <p>A queued record's due is its slot on the key's rate schedule, and it stays due until it leaves: time the
 * release lost to a late tick (an exactly-once commit, a GC pause) is owed, not dropped. A key makes up at once
 * what a normal stall costs ({@link #jitterMemoryNanos}: just under half an interval, and at least
 * {@link #NORMAL_STALL_NANOS}),
 * and anything more at {@link #CATCH_UP_SPEED} times its rate until it is back on schedule. The task's virtual
 * clock bounds what can be owed: a stall longer than {@code shaper.shaping.catchup.max.ms} is forgotten beyond that.
 */
public final class ReleasePace {

    /** How much faster than its rate a key that fell behind its schedule releases until it is back on it. */
    public static final double CATCH_UP_SPEED = 1.02;

    /**
     * The least stall of the stream thread a key makes up at once: an exactly-once commit stalls it about this long
     * every commit interval; a longer stall is made up at {@link #CATCH_UP_SPEED}.
     */
    public static final long NORMAL_STALL_NANOS = 8_000_000L;

    /** The finest tick: Kafka Streams schedules punctuations in whole milliseconds. */
    public static final long MIN_TICK_MS = 1;

    private ReleasePace() {
    }

    /**
     * The release tick while keys of {@code fastestRate} (records per second) wait: half the interval between their
     * records, so that every slot has a tick before it, in whole milliseconds between {@link #MIN_TICK_MS} and
     * {@code maxTickMs}; {@code maxTickMs} when nothing waits ({@code fastestRate} 0).
     */
    public static long tickMs(double fastestRate, long maxTickMs) {
        if (!(fastestRate > 0)) {
            return maxTickMs;
        }
        long half = (long) Math.floor(500.0 / fastestRate);
        return Math.max(MIN_TICK_MS, Math.min(maxTickMs, half));
    }

    /**
     * How far behind its schedule a key of {@code rule} may fall and still make it up at once: half its interval
     * less a millisecond, so that this and a tick of at most half the interval stay below one interval (one record
     * more in a window at most), and at least {@link #NORMAL_STALL_NANOS}.
     */
    public static long jitterMemoryNanos(ShapingRule rule) {
        return jitterMemoryNanos(rule.intervalNanos(1));
    }

    private static long jitterMemoryNanos(long intervalNanos) {
        return Math.max(intervalNanos / 2 - 1_000_000L, NORMAL_STALL_NANOS);
    }

    /**
     * The most releases of a key at {@code rate} per second in any one-second window while no stall of the stream
     * thread exceeds {@link #jitterMemoryNanos}, at the default tick bound of 100 ms: {@code rate + 1} up to
     * 50/s; above, what the tick and a normal stall hold back comes on top (1,010 at 1,000/s).
     */
    public static int maxInOneSecond(double rate) {
        return maxInOneSecond(rate, 0);
    }

    /**
     * Like {@link #maxInOneSecond(double)} on a machine whose release ticks are routinely {@code routineLateNanos}
     * late ({@code shaper.release.lateness}): a key makes that up at once, so it adds {@code rate x} it.
     */
    public static int maxInOneSecond(double rate, long routineLateNanos) {
        return (int) Math.floor(rate + rate * aheadOrBehindSeconds(rate, routineLateNanos)) + 1;
    }

    /**
     * The most releases of a key at {@code rate} per second in any one-second window while it makes up a longer
     * stall: {@link #CATCH_UP_SPEED} times the rate, plus what {@link #maxInOneSecond} adds.
     */
    public static int maxInOneSecondCatchingUp(double rate) {
        return maxInOneSecondCatchingUp(rate, 0);
    }

    /** Like {@link #maxInOneSecondCatchingUp(double)} with ticks routinely {@code routineLateNanos} late. */
    public static int maxInOneSecondCatchingUp(double rate, long routineLateNanos) {
        return (int) Math.floor(rate * CATCH_UP_SPEED + rate * aheadOrBehindSeconds(rate, routineLateNanos)) + 1;
    }

    /** How far a key may release ahead of its schedule (a tick) plus how far behind it makes up at once. */
    private static double aheadOrBehindSeconds(double rate, long routineLateNanos) {
        long intervalNanos = ShapingRule.intervalNanos(1, rate);
        long behind = Math.max(jitterMemoryNanos(intervalNanos), routineLateNanos);
        return (tickMs(rate, 100) * 1_000_000L + behind) / 1e9;
    }
}
