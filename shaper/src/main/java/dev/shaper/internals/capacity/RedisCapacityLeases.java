package dev.shaper.internals.capacity;

import dev.shaper.internals.admission.RedisClients;
import dev.shaper.internals.admission.RedisUnavailableException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
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

    private final RedisClients.Created redis;
    private final Terms terms;
    private final String[] keys;
    private volatile StatefulRedisConnection<String, String> connection;

    /**
     * @param uri            {@code redis://...} or {@code rediss://...}, as {@code shaper.redis.uri}
     * @param timeout        the longest a renewal may take; a slower Redis counts as down
     * @param reconnectDelay how long Lettuce waits between attempts to reconnect
     * @param trustedCas     for {@code rediss://}: a PEM file of trusted certificate authorities, or null
     */
    public RedisCapacityLeases(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas, Terms terms) {
        this.redis = RedisClients.create(uri, timeout, reconnectDelay, trustedCas);
        this.terms = terms;
        this.keys = new String[] {CapacityLeaseScript.tableName(terms.applicationId())};
    }

    @Override
    public Lease renew(PriorityDemand demand, Collection<Integer> partitions) throws RedisUnavailableException {
        String[] args = CapacityLeaseScript.args(terms.instanceId(), terms.capacity().getAsDouble(),
                terms.inputPartitions(), terms.lease().toMillis(), demand, partitions);
        try {
            StatefulRedisConnection<String, String> c = connection();
            List<Object> reply;
            try {
                reply = c.sync().evalsha(CapacityLeaseScript.SCRIPT.sha(), ScriptOutputType.MULTI, keys, args);
            } catch (RedisNoScriptException e) {
                reply = c.sync().eval(CapacityLeaseScript.SCRIPT.source(), ScriptOutputType.MULTI, keys, args);
            }
            return CapacityLeaseScript.parse(reply);
        } catch (RedisException | IllegalStateException e) {
            throw new RedisUnavailableException("Redis " + redis.description() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String description() {
        return redis.description();
    }

    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> c = connection;
        if (c == null) {
            synchronized (this) {
                if (connection == null) {
                    connection = redis.client().connect();
                }
                c = connection;
            }
        }
        return c;
    }

    @Override
    public void close() {
        redis.close();
    }
}
