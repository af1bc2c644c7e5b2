package dev.shaper.internals.capacity;

import dev.shaper.internals.redis.RedisScriptRunner;
import dev.shaper.internals.redis.RedisUnavailableException;
import java.nio.file.Path;
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
     */
    public record Terms(String applicationId, String instanceId, DoubleSupplier capacity, int inputPartitions,
                        Duration lease) {
    }

    private final RedisScriptRunner redis;
    private final Terms terms;
    private final String[] keys;

    /**
     * @param uri            {@code redis://...} or {@code rediss://...}, as {@code shaper.redis.uri}
     * @param timeout        the longest a renewal may take; a slower Redis counts as down
     * @param reconnectDelay how long Lettuce waits between attempts to reconnect
     * @param trustedCas     for {@code rediss://}: a PEM file of trusted certificate authorities, or null
     */
    public RedisCapacityLeases(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas, Terms terms) {
        this.redis = new RedisScriptRunner(uri, timeout, reconnectDelay, trustedCas);
        this.terms = terms;
        this.keys = CapacityLeaseScript.keys(terms.applicationId());
    }

    @Override
    public Lease renew(PriorityDemand demand, Collection<Integer> partitions, double held)
            throws RedisUnavailableException {
        String[] args = CapacityLeaseScript.args(terms.instanceId(), terms.capacity().getAsDouble(),
                terms.inputPartitions(), terms.lease().toMillis(), demand, partitions, held);
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
