package dev.shaper.internals.capacity;

import dev.shaper.internals.shaping.ReleaseWindow;
import dev.shaper.internals.shaping.WindowCurve;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The total rate ({@code shaper.shaping.total.rate}) as this instance's tasks share it. The instance holds either
 * a lease, its grant of the cluster-wide capacity (see {@link CapacityCoordinator}), or, without one, the static
 * shares of the tasks it runs (total / input partitions each), pooled. It splits what it holds among its tasks by
 * demand, priority by priority (what tasks ask at priority 0 first, then at 1, ...), and within a priority max-min
 * fair (water-filling): a task gets what it asks for up to an equal split, and what others leave goes to those that
 * want more. So a busy task uses what idle tasks leave, and the instance never exceeds its
 * grant or its tasks' static shares together, which keeps the application within the total across instances.
 * Between two splits, what a task was given and did not use goes to the others too, as spare units.
 *
 * <p>Each task reports its demand once per tick and takes the rate it is given until its next tick. The rates in
 * use never add up to more than the pool: a task is given at most what the others' rates in use leave, so a task
 * whose share shrinks gives it up at its own next tick before another can take it. Thread-safe: tasks of several
 * stream threads share one pool.
 *
 * <p>The pool is also a ceiling the instance's releases never pass, whatever its tasks' rates and stalls: every
 * release of every task, at once or from a queue, goes through {@link #mayRelease}, which holds the units released
 * in the last second of wall time below the pool plus one ({@link ReleaseWindow#holdsLessThan}: a pool that falls
 * binds at once). What it released in the last second, or the pool if more, is what the instance may have in use
 * ({@link #held}): the lease table reserves that much for it. A release stamped a while ago (a stream thread reads
 * the time once per batch) is held to the lowest pool since its stamp ({@link PoolHistory}), so that capacity given
 * to this instance meanwhile never lands in a second that the instance that gave it up still counts.
 */
public final class CapacityPool {

    /** Why the pool is what it is: what the instance holds of the total rate. */
    public enum Holding {
        /** A lease of the cluster-wide capacity, renewed through Redis. */
        LEASE,
        /** A lease that could not be renewed: the last grant or the static shares, whichever is less. */
        HOLD,
        /** The static shares of the instance's partitions: no lease, or one that surely ended. */
        STATIC;

        /** The name as a metric tag and in {@code /capacity}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A fall of the pool smaller than this share is a lease's usual wobble, not a fall that holds the window. */
    private static final double FALL = 0.02;

    /** The instance's releases over the last second, all tasks together. */
    private final ReleaseWindow releases = new ReleaseWindow();
    /** The wall clock of the releases, in milliseconds. */
    private final LongSupplier wallClockMs;
    /** The pool over the last seconds, by {@link #wallClockMs}. */
    private final PoolHistory history = new PoolHistory();
    /** The instance's releases against the pool's rate: what a task held back by its own part may still take. */
    private final PoolPace pace = new PoolPace();
    /** See {@link #mostInOneSecond}. */
    private long mostInOneSecond;

    /** The application's capacity C; it moves with the closed loop's decisions (see {@link #setTotalRate}). */
    private double totalRate;
    private final int inputPartitions;
    private final List<Member> members = new ArrayList<>();
    /** The leased grant, or NaN while the instance holds the static shares. */
    private double leased = Double.NaN;
    /** Whether the grant may no longer exceed the static shares: the lease is ending without a renewal. */
    private boolean leaseEnding;
    private Runnable membershipListener = () -> { };
    /** Units that tasks gave up in their last ticks, for the tasks that have more to release. */
    private double spare;
    /** The lowest priority (highest number) the last split reached: what the pool ran out at, or every priority. */
    private volatile int lastServedPriority = Integer.MAX_VALUE;

    /**
     * @param totalRate       the application's total rate, units per second (more than 0)
     * @param inputPartitions partitions of the input topic: each task's static share is the total over them
     */
    public CapacityPool(double totalRate, int inputPartitions) {
        this(totalRate, inputPartitions, System::currentTimeMillis);
    }

    /**
     * @param wallClockMs the clock of the releases ({@code shaper.released.ms}), milliseconds: the one the stream
     *                    threads stamp them by
     */
    public CapacityPool(double totalRate, int inputPartitions, LongSupplier wallClockMs) {
        if (!(totalRate > 0) || inputPartitions < 1) {
            throw new IllegalArgumentException("need a total rate > 0 and at least one partition, got " + totalRate
                    + " and " + inputPartitions);
        }
        this.totalRate = totalRate;
        this.inputPartitions = inputPartitions;
        this.wallClockMs = wallClockMs;
        history.changed(wallClockMs.getAsLong(), pooled());
    }

    /**
     * Whether a release of any of the instance's tasks may happen at {@code wallMs}: fewer units released in the last
     * second than the pool, plus one (a record costing more still leaves, its cost on top). Across instances the pools
     * add up to the capacity at most, so a second holds at most C plus one record per instance.
     */
    public synchronized boolean mayRelease(long wallMs) {
        return releases.holdsLessThan(wallMs, limitAt(wallMs));
    }

    /** How many units {@link #mayRelease} lets leave at {@code wallMs}, at most: what the last second has room for. */
    public synchronized long room(long wallMs) {
        return Math.max(0, limitAt(wallMs) - releases.heldAt(wallMs));
    }

    /**
     * How long from {@code wallMs} until {@link #mayRelease} lets a release go again: 0 while the last second has
     * room; after a fall of the pool, until the releases made at the larger one have left the window.
     */
    public synchronized long msUntilRoom(long wallMs) {
        return releases.msUntilBelow(wallMs, limitAt(wallMs));
    }

    /** When the units still to come may leave under the ceiling, from {@code wallMs} on (see {@link #mayRelease}). */
    public synchronized WindowCurve ceilingCurve(long wallMs) {
        return releases.curve(wallMs, limitAt(wallMs));
    }

    /** The units a second may hold with a release stamped {@code wallMs}: the lowest pool since then, plus one. */
    private long limitAt(long wallMs) {
        return (long) Math.floor(history.lowestSince(wallMs, pooled())) + 1;
    }

    /** Notes the pool as it is now, after anything that may have changed it. */
    private void poolMayHaveChanged() {
        history.changed(wallClockMs.getAsLong(), pooled());
    }

    /** {@code units} of one of the instance's tasks left at {@code wallMs}, at once or from a queue. */
    public synchronized void released(long wallMs, long units) {
        releases.record(wallMs, units);
        pace.released(wallMs, units, pooled());
        mostInOneSecond = Math.max(mostInOneSecond, releases.heldAt(wallMs));
    }

    /** The most units the instance's tasks released in any one second so far. */
    public synchronized long mostInOneSecond() {
        return mostInOneSecond;
    }

    /** What the instance holds now: a lease, a lease it could not renew, or its static shares. */
    public synchronized Holding holding() {
        return Double.isNaN(leased) ? Holding.STATIC : leaseEnding ? Holding.HOLD : Holding.LEASE;
    }

    /** The units the instance's tasks released in the second up to {@code wallMs}. */
    public synchronized long releasedInLastSecond(long wallMs) {
        return releases.heldAt(wallMs);
    }

    /**
     * What the instance may have in use in any one-second window from now on: what its tasks released in the last
     * second, or its pool, whichever is more (a second that holds earlier releases at a larger pool holds at most
     * those, since every release waits for the window; one from now on at most the pool). The lease table reserves
     * this much for the instance, so that capacity it gives up reaches another instance only once its own releases
     * no longer need it.
     */
    public synchronized double held() {
        return Math.max(pooled(), releases.heldAt(wallClockMs.getAsLong()));
    }

    /**
     * From now on the application's capacity is {@code totalRate}, units per second (more than 0): the static shares
     * follow at once; a leased grant falls at once in proportion to a fall (so the grants together stay within the
     * new capacity without a call to Redis) and follows a rise at its next renewal; each task's rate follows at its
     * next tick.
     */
    public synchronized void setTotalRate(double totalRate) {
        if (!(totalRate > 0) || Double.isInfinite(totalRate)) {
            throw new IllegalArgumentException("need a finite total rate > 0, got " + totalRate);
        }
        if (!Double.isNaN(leased) && totalRate < this.totalRate) {
            leased = leased * totalRate / this.totalRate;
        }
        this.totalRate = totalRate;
        poolMayHaveChanged();
    }

    /** The application's capacity now, units per second. */
    public synchronized double totalRate() {
        return totalRate;
    }

    /** One task's static share: the total rate over the input partitions. */
    public synchronized double staticShare() {
        return totalRate / inputPartitions;
    }

    /** What this instance's tasks share: the leased grant, or their static shares together without a lease. */
    public synchronized double pooled() {
        double statics = staticShare() * members.size();
        if (Double.isNaN(leased)) {
            return statics;
        }
        return leaseEnding ? Math.min(leased, statics) : leased;
    }

    /** From now on the tasks share {@code grant}, units per second, a lease of the cluster-wide capacity. */
    public synchronized void useLease(double grant) {
        leased = Math.max(0, grant);
        leaseEnding = false;
        poolMayHaveChanged();
    }

    /**
     * The lease could not be renewed: until {@link #useStaticShares}, the tasks share the last grant or their static
     * shares, whichever is less, since the other instances still count the grant as in use.
     */
    public synchronized void holdLease() {
        leaseEnding = true;
        poolMayHaveChanged();
    }

    /** Without a lease: the tasks share their static shares. */
    public synchronized void useStaticShares() {
        leased = Double.NaN;
        leaseEnding = false;
        poolMayHaveChanged();
    }

    /**
     * A task had less to release than its rate allowed: {@code units} it gave up (see
     * {@link dev.shaper.internals.shaping.TotalRateLimiter#forfeit}) wait here for a task that has more. At most
     * {@code horizonSeconds} of the pool wait, so what is saved never makes a burst longer than that.
     */
    public synchronized void depositSpare(double units, double horizonSeconds) {
        spare = Math.min(spare + Math.max(0, units), pooled() * horizonSeconds);
    }

    /**
     * The lowest priority (highest number) the last split of the pool reached: below it the pool gives nothing, so a
     * task must not spend its part on a lower priority either.
     */
    public int servedPriority() {
        return lastServedPriority;
    }

    /**
     * Takes {@code units} for a record of {@code priority} that the rate its task was given held back at
     * {@code wallMs}: units another task gave up, if that many wait, or else, while the instance as a whole has
     * released less than its pool lately ({@link PoolPace}), room the other tasks' parts left between their ticks.
     * Not for a priority lower than one the pool could not serve whole: such units go to the priority the capacity
     * ran out at, not below it.
     */
    public synchronized boolean takeSpare(long units, int priority, long wallMs) {
        if (priority > lastServedPriority) {
            return false;
        }
        if (spare >= units) {
            spare -= units;
            return true;
        }
        // A task alone in the pool has it all as its part: its own limiter, and the shares of its bands, spend it.
        return members.size() > 1 && !fellWithinASecond(wallMs) && pace.behind(wallMs);
    }

    /**
     * Whether the pool fell by more than {@link #FALL} in the second up to {@code wallMs}: the window still holds
     * releases made at the larger pool, and the room it frees goes to the tasks at their parts, as the queue's
     * estimate after a fall counts it, not to whichever asks first.
     */
    private boolean fellWithinASecond(long wallMs) {
        return history.highestSince(wallMs - 1_000, pooled()) > pooled() * (1 + FALL);
    }

    /** The rates the tasks last asked for, together. */
    public synchronized double demand() {
        return demandByPriority().total();
    }

    /** The rates the tasks last asked for, together, priority by priority. */
    public synchronized PriorityDemand demandByPriority() {
        PriorityDemand sum = PriorityDemand.NONE;
        for (Member member : members) {
            sum = sum.plus(member.demand);
        }
        return sum;
    }

    /** The input partitions of the tasks in the pool. */
    public synchronized List<Integer> partitions() {
        List<Integer> partitions = new ArrayList<>(members.size());
        for (Member member : members) {
            partitions.add(member.partition);
        }
        return partitions;
    }

    /** Runs {@code listener}, on the task's thread, whenever a task joins or leaves the pool. */
    public synchronized void onMembershipChange(Runnable listener) {
        this.membershipListener = listener;
    }

    /** The rates the tasks were last given, together: never more than {@link #pooled()}. */
    public synchronized double given() {
        double sum = 0;
        for (Member member : members) {
            sum += member.rate;
        }
        return sum;
    }

    /**
     * A new task's place in the pool; it starts with no rate until its first {@link Member#update}.
     *
     * @param partition the task's input partition
     */
    public Member join(int partition) {
        Runnable listener;
        Member member = new Member(partition);
        synchronized (this) {
            members.add(member);
            poolMayHaveChanged();
            listener = membershipListener;
        }
        listener.run();
        return member;
    }

    /** One task's place in the pool. */
    public final class Member {
        private final int partition;
        private PriorityDemand demand = PriorityDemand.NONE;
        private double rate;

        private Member(int partition) {
            this.partition = partition;
        }

        /**
         * Reports the rate this task could use now (units per second) and returns the rate it may use until its
         * next update: its max-min fair part of the pool, less what the other tasks' rates in use leave.
         */
        public double update(PriorityDemand demandPerSecond) {
            synchronized (CapacityPool.this) {
                demand = demandPerSecond;
                double target = fairShares().get(this);
                double othersInUse = 0;
                for (Member other : members) {
                    if (other != this) {
                        othersInUse += other.rate;
                    }
                }
                rate = Math.max(0, Math.min(target, pooled() - othersInUse));
                return rate;
            }
        }

        /** The rate this task was last given. */
        public double rate() {
            synchronized (CapacityPool.this) {
                return rate;
            }
        }

        /** The task closed: its static share leaves the pool, and its rate is free for the others. */
        public void leave() {
            Runnable listener;
            synchronized (CapacityPool.this) {
                members.remove(this);
                poolMayHaveChanged();
                listener = membershipListener;
            }
            listener.run();
        }
    }

    /**
     * The members' parts of the pool: priority by priority, the demands at that priority share what the higher ones
     * left, max-min fair (ascending by demand, each gets its demand up to an equal split of what is left); what
     * remains when every demand is met is split evenly, as headroom for bursts.
     */
    private Map<Member, Double> fairShares() {
        Map<Member, Double> shares = new IdentityHashMap<>();
        int levels = 0;
        for (Member member : members) {
            shares.put(member, 0.0);
            levels = Math.max(levels, member.demand.levels());
        }
        double remaining = pooled();
        lastServedPriority = Integer.MAX_VALUE;
        List<Member> byDemand = new ArrayList<>(members);
        for (int priority = 0; priority < levels && remaining > 0; priority++) {
            int level = priority;
            byDemand.sort(Comparator.comparingDouble(m -> m.demand.at(level)));
            int left = byDemand.size();
            for (Member member : byDemand) {
                double given = Math.min(member.demand.at(level), remaining / left);
                shares.merge(member, given, Double::sum);
                remaining -= given;
                left--;
            }
            if (remaining <= pooled() * 0.01) {
                lastServedPriority = priority; // the pool (all but crumbs) ran out here: no spare units below it
            }
        }
        double headroom = Math.max(0, remaining) / Math.max(1, members.size());
        shares.replaceAll((member, given) -> given + headroom);
        return shares;
    }
}
