package dev.shaper.internals.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import java.util.function.Function;

/** A {@link RedisConnection} to one Redis server. */
final class SingleRedisConnection<K, V> implements RedisConnection<K, V> {

    private final StatefulRedisConnection<K, V> connection;

    SingleRedisConnection(StatefulRedisConnection<K, V> connection) {
        this.connection = connection;
    }

    @Override
    public RedisClusterCommands<K, V> sync() {
        return connection.sync();
    }

    @Override
    public <T> List<RedisFuture<T>> pipeline(Function<RedisClusterAsyncCommands<K, V>, List<RedisFuture<T>>> sends) {
        // Held back until the one flush: many commands in one write, one system call, instead of one each.
        connection.setAutoFlushCommands(false);
        try {
            return sends.apply(connection.async());
        } finally {
            connection.flushCommands();
            connection.setAutoFlushCommands(true);
        }
    }

    @Override
    public String nodeOf(K key) {
        return "";
    }

    @Override
    public String ping() {
        return connection.sync().ping();
    }

    @Override
    public List<RedisClusterCommands<K, V>> masters() {
        return List.of(connection.sync());
    }

    @Override
    public boolean isOpen() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        connection.close();
    }
}
