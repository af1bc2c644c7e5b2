package dev.shaper.internals.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.function.Function;

/**
 * A connection to Redis as the shaper uses it, to one server or to a Redis Cluster alike: the commands every user
 * needs (Lettuce's {@link RedisClusterCommands}, which both kinds of connection implement, a cluster's routing each
 * command to the node of its first key's slot), and the few things done differently on a cluster: pipelining, the
 * health check, reaching every master. Open one with {@link RedisClients.Client#connect}.
 *
 * @param <K> keys
 * @param <V> values
 */
public interface RedisConnection<K, V> extends AutoCloseable {

    /** The commands, each answered before the call returns (within the client's timeout). */
    RedisClusterCommands<K, V> sync();

    /**
     * Sends the commands {@code sends} issues as one pipeline and returns their replies to come, in order. On a single
     * Redis they leave in one write; on a cluster each leaves at once, on its node's connection, so that a command
     * Redis redirects (MOVED, ASK) or one for a node not yet connected is never left waiting for a flush.
     * Call it from one thread at a time.
     */
    <T> List<RedisFuture<T>> pipeline(Function<RedisClusterAsyncCommands<K, V>, List<RedisFuture<T>>> sends);

    /**
     * Which node a command on {@code key} goes to now, as an opaque name (the same for every key on a single
     * Redis): what a script loaded by one command is known to, for the commands after it.
     */
    String nodeOf(K key);

    /**
     * PING, on every node that holds data: on a cluster, every slot checked to have a master and each master pinged,
     * and if that fails, once the topology is read again (a failover moves slots to another node). Throws Lettuce's
     * exceptions.
     *
     * @return {@code PONG}, or the first other reply
     */
    String ping();

    /**
     * The commands of each master, connected now (the one server's on a single Redis), for work each must do,
     * such as loading the scripts; on a cluster, the connections that commands routed by slot use.
     */
    List<RedisClusterCommands<K, V>> masters();

    /** False once closed or (for a single Redis) while the connection is down. */
    boolean isOpen();

    @Override
    void close();
}
