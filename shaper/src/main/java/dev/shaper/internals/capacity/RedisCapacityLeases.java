package dev.shaper.internals.capacity;

import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.redis.RedisScriptRunner;
import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.Collection;
import java.util.function.DoubleSupplier;

/**
 * The capacity's leases in Redis: one call of the lease script per renewal, on a connection of its own, so that the
 * admission's pipelined syncs never delay a renewal. The script is run with EVALSHA and loaded again when Redis
 * answers NOSCRIPT (after a restart or {@code SCRIPT FLUSH}). Any failure surfaces as
 * {@link RedisUnavailableException} within the timeout.
 */
public final class RedisCapacityLeases implements CapacityLeases {

    /**
     * Where the application's leases live, and on what terms.
     *
     * @param capacity the capacity C to share, read at each renewal: it moves with the closed loop's decisions
     * @param learning how long a lease table found lost is learnt again: the longest lease an instance may hold
     *                 ({@link LeaseCadence#longestLease})
     */
    public record Terms(String applicationId, String instanceId, DoubleSupplier capacity, int inputPartitions,
                        Duration learning) {
    }

    private final RedisScriptRunner redis;
    private final Terms terms;
    private final String[] keys;

    /**
     * @param redis the instance's Redis client, on which this opens a connection of its own; its timeout bounds each
     *              call, a slower Redis counting as down
     */
    public RedisCapacityLeases(RedisClients.Client redis, Terms terms) {
        this.redis = new RedisScriptRunner(redis);
        this.terms = terms;
        this.keys = CapacityLeaseScript.keys(terms.applicationId());
    }

    @Override
    public Lease renew(PriorityDemand demand, Collection<Integer> partitions, double held, Duration lease)
            throws RedisUnavailableException {
        String[] args = CapacityLeaseScript.args(terms.instanceId(), terms.capacity().getAsDouble(),
                terms.inputPartitions(), lease.toMillis(), demand, partitions, held, terms.learning().toMillis());
        return redis.run(CapacityLeaseScript.SCRIPT, keys, args, CapacityLeaseScript::parse);
    }

    @Override
    public String description() {
        return redis.description();
    }

    @Override
    public void close() {
        redis.close();
    }
}
