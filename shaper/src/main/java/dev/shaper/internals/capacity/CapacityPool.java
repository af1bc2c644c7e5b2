package dev.shaper.internals.capacity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The total rate ({@code shaper.shaping.total.rate}) as this instance's tasks share it: the instance holds the
 * static shares of the tasks it runs (total / input partitions each), pooled, and splits them among its tasks by
 * demand, max-min fair (water-filling): a task gets what it asks for up to an equal split, and what others leave
 * goes to those that want more. So a busy task uses what idle tasks leave, and the instance never exceeds its
 * tasks' static shares together, which keeps the application within the total across instances.
 *
 * <p>Each task reports its demand once per tick and takes the rate it is given until its next tick. The rates in
 * use never add up to more than the pool: a task is given at most what the others' rates in use leave, so a task
 * whose share shrinks gives it up at its own next tick before another can take it. Thread-safe: tasks of several
 * stream threads share one pool.
 */
public final class CapacityPool {

    private final double totalRate;
    private final int inputPartitions;
    private final List<Member> members = new ArrayList<>();

    /**
     * @param totalRate       the application's total rate, units per second (more than 0)
     * @param inputPartitions partitions of the input topic: each task's static share is the total over them
     */
    public CapacityPool(double totalRate, int inputPartitions) {
        if (!(totalRate > 0) || inputPartitions < 1) {
            throw new IllegalArgumentException("need a total rate > 0 and at least one partition, got " + totalRate
                    + " and " + inputPartitions);
        }
        this.totalRate = totalRate;
        this.inputPartitions = inputPartitions;
    }

    /** One task's static share: the total rate over the input partitions. */
    public double staticShare() {
        return totalRate / inputPartitions;
    }

    /** What this instance's tasks share: their static shares together. */
    public synchronized double pooled() {
        return staticShare() * members.size();
    }

    /** The rates the tasks were last given, together: never more than {@link #pooled()}. */
    public synchronized double given() {
        double sum = 0;
        for (Member member : members) {
            sum += member.rate;
        }
        return sum;
    }

    /** A new task's place in the pool; it starts with no rate until its first {@link Member#update}. */
    public synchronized Member join() {
        Member member = new Member();
        members.add(member);
        return member;
    }

    /** One task's place in the pool. */
    public final class Member {
        private double demand;
        private double rate;

        private Member() {
        }

        /**
         * Reports the rate this task could use now (units per second) and returns the rate it may use until its
         * next update: its max-min fair part of the pool, less what the other tasks' rates in use leave.
         */
        public double update(double demandPerSecond) {
            synchronized (CapacityPool.this) {
                demand = Math.max(0, demandPerSecond);
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
            synchronized (CapacityPool.this) {
                members.remove(this);
            }
        }
    }

    /**
     * Max-min fair parts of the pool by the members' demands: ascending by demand, each gets its demand up to an
     * equal split of what is left; what remains when every demand is met is split evenly, as headroom for bursts.
     */
    private Map<Member, Double> fairShares() {
        List<Member> byDemand = new ArrayList<>(members);
        byDemand.sort(Comparator.comparingDouble(m -> m.demand));
        Map<Member, Double> shares = new IdentityHashMap<>();
        double remaining = pooled();
        int left = byDemand.size();
        for (Member member : byDemand) {
            double given = Math.min(member.demand, remaining / left);
            shares.put(member, given);
            remaining -= given;
            left--;
        }
        double headroom = remaining / Math.max(1, byDemand.size());
        shares.replaceAll((member, given) -> given + headroom);
        return shares;
    }
}
