package dev.shaper.internals.shaping;

/**
 * How the release of queued records keeps each key within its rate and close to it, whatever the stream thread
 * does: the bound on a key's releases in any second, the tick that follows the rates in force, how much lateness a
 * key makes up at once and how fast it makes up more.
 *
 * <p>The bound comes first: no one-second window holds more than {@link #maxInOneSecond} units of a key (its
 * {@link ReleaseWindow}). Within it, a queued record's due is its slot on the key's rate schedule, and it stays due
 * until it leaves: time the release lost to a late tick (an exactly-once commit, a GC pause, a busy machine) is owed,
 * not dropped. A key makes up at once what a normal stall costs ({@link #jitterMemoryNanos}: just under half an
 * interval, and at least {@link #NORMAL_STALL_NANOS}), and anything more at one unit a second above its rate
 * ({@link #catchUpIntervalNanos}) until it is back on schedule: what its window has room for when every second
 * before was full. The task's virtual clock bounds what can be owed: a
 * stall longer than {@code shaper.shaping.catchup.max.ms} is forgotten beyond that.
 */
public final class ReleasePace {


    /**
     * The least stall of the stream thread a key makes up at once: an exactly-once commit stalls it about this long
     * every commit interval; a longer stall is made up at {@link #catchUpIntervalNanos}.
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
     * less a millisecond, so that this and a tick of at most half the interval stay below one interval, and at least
     * {@link #NORMAL_STALL_NANOS}.
     */
    public static long jitterMemoryNanos(ShapingRule rule) {
        return jitterMemoryNanos(rule.intervalNanos(1));
    }

    private static long jitterMemoryNanos(long intervalNanos) {
        return Math.max(intervalNanos / 2 - 1_000_000L, NORMAL_STALL_NANOS);
    }

    /**
     * The spacing of {@code cost} units of a key of {@code rule} that fell behind its schedule: one unit a second
     * above its rate, the most a window of {@link #maxInOneSecond} makes room for in the long run.
     */
    public static long catchUpIntervalNanos(ShapingRule rule, long cost) {
        return ShapingRule.intervalNanos(cost, rule.ratePerSecond() + 1);
    }

    /**
     * The most records a key at {@code rate} per second releases in any one-second window, whatever the stream
     * thread does (late ticks, stalls, time made up): {@code floor(rate) + 1}, which its {@link ReleaseWindow}
     * enforces. With costs, in units: {@code floor(rate)} plus the cost of the window's last record.
     */
    public static int maxInOneSecond(double rate) {
        return (int) Math.min(Integer.MAX_VALUE, Math.floor(rate) + 1);
    }
}
