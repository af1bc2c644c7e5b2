package dev.shaper.internals.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;

/**
 * Runs Lua scripts on a Redis connection of its own, opened at the first call: EVALSHA, and EVAL (which loads the
 * script again) when Redis answers NOSCRIPT after a restart or {@code SCRIPT FLUSH}. Any failure, or a reply the
 * caller cannot read, surfaces as {@link RedisUnavailableException} within the client's timeout.
 */
public final class RedisScriptRunner implements AutoCloseable {

    /** Reads a script's reply; may throw {@link IllegalStateException} or {@link ClassCastException} on one it cannot. */
    @FunctionalInterface
    public interface Reply<T> {
        T parse(List<Object> reply);
    }

    private final RedisClients.Client redis;
    private volatile StatefulRedisConnection<String, String> connection;

    /** A runner with a connection of its own on the instance's client, which it does not close. */
    public RedisScriptRunner(RedisClients.Client redis) {
        this.redis = redis;
    }

    /** Runs {@code script} on {@code keys} with {@code args} and reads its multi-bulk reply with {@code reply}. */
    public <T> T run(RedisScript script, String[] keys, String[] args, Reply<T> reply)
            throws RedisUnavailableException {
        try {
            StatefulRedisConnection<String, String> c = connection();
            List<Object> answer;
            try {
                answer = c.sync().evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
            } catch (RedisNoScriptException e) {
                answer = c.sync().eval(script.source(), ScriptOutputType.MULTI, keys, args);
            }
            return reply.parse(answer);
        } catch (RedisException | IllegalStateException | IllegalArgumentException | ClassCastException e) {
            throw new RedisUnavailableException("Redis " + redis.description() + ": " + e.getMessage(), e);
        }
    }

    /** Where the scripts run, without credentials, for logs. */
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

    /** Closes this runner's connection; the client stays open for its other users. */
    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
