package dev.shaper.internals.capacity;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.Collection;

/**
 * Where the instances of one application lease their parts of the cluster-wide capacity ({@link RedisCapacityLeases}
 * in production). One call per instance per renewal, whatever the number of records or keys.
 */
public interface CapacityLeases extends AutoCloseable {

    /**
     * What a renewal grants.
     *
     * @param grant       this instance's rate, units per second, until its lease ends or its next renewal
     * @param available   what the leases share: the capacity of the partitions live instances run
     * @param instances   the live instances, this one included
     * @param totalDemand the live instances' demands together, units per second
     * @param learning    whether the table is being learnt again after it was lost: the grant is no more than what
     *                    the instance held
     */
    record Lease(double grant, double available, int instances, double totalDemand, boolean learning) {
    }

    /**
     * Reports this instance's demand, priority by priority, the input partitions it runs and what it may have in
     * use ({@code held}: what it released in the last second, or its rate if more, which its entry reserves), and
     * returns its grant, which stands for {@code lease} without a renewal.
     *
     * @throws RedisUnavailableException when the leases cannot be reached within the timeout
     */
    Lease renew(PriorityDemand demand, Collection<Integer> partitions, double held, Duration lease)
            throws RedisUnavailableException;

    /** Where the leases are kept, without credentials, for logs. */
    String description();

    @Override
    void close();
}
