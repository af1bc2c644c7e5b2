package dev.shaper.internals.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs Lua scripts: EVALSHA, and EVAL (which loads the script again) when Redis answers NOSCRIPT after a restart,
 * {@code SCRIPT FLUSH} or, on a Redis Cluster, on a node that never ran the script (a replica promoted by a failover).
 * The one place the shaper runs a script: one call at a time on a connection of this runner's own ({@link #run}), or
 * on a caller's connection, one call ({@link #evaluate}) or a pipeline of many ({@link #pipelined}). Any failure, or a
 * reply the caller cannot read, surfaces as {@link RedisUnavailableException} within the client's timeout.
 */
public final class RedisScriptRunner implements AutoCloseable {

    /**
     * Reads a script's reply; may throw {@link IllegalStateException} or {@link ClassCastException} on one it cannot.
     */
    @FunctionalInterface
    public interface Reply<T> {
        T parse(List<Object> reply);
    }

    /** One script call of a pipeline. */
    public record Call(RedisScript script, byte[][] keys, byte[][] args) {
    }

    private final RedisClients.Client redis;
    private volatile RedisConnection<String, String> connection;

    /** A runner with a connection of its own on the instance's client, which it does not close. */
    public RedisScriptRunner(RedisClients.Client redis) {
        this.redis = redis;
    }

    /** Runs {@code script} on {@code keys} with {@code args} and reads its multi-bulk reply with {@code reply}. */
    public <T> T run(RedisScript script, String[] keys, String[] args, Reply<T> reply)
            throws RedisUnavailableException {
        try {
            return reply.parse(evaluate(connection().sync(), script, keys, args));
        } catch (RedisException | IllegalStateException | IllegalArgumentException | ClassCastException e) {
            throw new RedisUnavailableException("Redis " + redis.description() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code script} once with {@code commands}, loading it again if Redis answers NOSCRIPT (the EVAL goes where
     * the EVALSHA went: to the node of the first key, on a cluster); Redis's and Lettuce's exceptions pass through,
     * for the caller to tell a failed Redis from a key it cannot use.
     */
    public static <K, V> List<Object> evaluate(RedisClusterCommands<K, V> commands, RedisScript script, K[] keys,
                                               V[] args) {
        try {
            return commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            return commands.eval(script.source(), ScriptOutputType.MULTI, keys, args);
        }
    }

    /**
     * Sends {@code calls} in one pipeline on {@code c} and waits, at most {@code timeout}, for every reply, failed ones
     * included; the calls Redis answers NOSCRIPT are sent once more, the first of each script on each node as an EVAL
     * that loads it there, and waited for as long again (so up to twice {@code timeout} after Redis lost its
     * scripts): a call that did run is never sent twice. A timeout leaves the outcome unknown. Read each reply with
     * {@link #replyOf}.
     *
     * @param description where the calls go, without credentials, for the exception's message
     */
    public static List<RedisFuture<List<Object>>> pipelined(RedisConnection<byte[], byte[]> c,
                                                            List<Call> calls, Duration timeout, String description)
            throws RedisUnavailableException {
        List<RedisFuture<List<Object>>> replies = send(c, calls, false);
        await(replies, timeout, description);
        List<Call> noScript = new ArrayList<>();
        List<Integer> noScriptAt = new ArrayList<>();
        for (int k = 0; k < replies.size(); k++) {
            if (isNoScript(replies.get(k))) {
                noScript.add(calls.get(k));
                noScriptAt.add(k);
            }
        }
        if (!noScript.isEmpty()) {
            List<RedisFuture<List<Object>>> retries = send(c, noScript, true);
            await(retries, timeout, description);
            for (int k = 0; k < noScript.size(); k++) {
                replies.set(noScriptAt.get(k), retries.get(k));
            }
        }
        return replies;
    }

    /**
     * Pipelines the calls; with the source, the first call of each script to each node is an EVAL that loads it
     * there (each node of a cluster has its own scripts).
     */
    private static List<RedisFuture<List<Object>>> send(RedisConnection<byte[], byte[]> c, List<Call> calls,
                                                        boolean withSource) {
        return c.pipeline(async -> {
            List<RedisFuture<List<Object>>> replies = new ArrayList<>(calls.size());
            Set<String> loaded = new HashSet<>();
            for (Call call : calls) {
                String node = call.keys().length == 0 ? "" : c.nodeOf(call.keys()[0]);
                // A node runs its commands in order: once the EVAL has loaded the script, EVALSHA finds it.
                replies.add(withSource && loaded.add(node + " " + call.script().sha())
                        ? async.eval(call.script().source(), ScriptOutputType.MULTI, call.keys(), call.args())
                        : async.evalsha(call.script().sha(), ScriptOutputType.MULTI, call.keys(), call.args()));
            }
            return replies;
        });
    }

    /**
     * Waits until every reply is in, failed ones included (unlike Lettuce's {@code awaitAll}, which throws at the
     * first failed one and so hides whether the others ran), at most {@code timeout} in all.
     */
    private static void await(List<RedisFuture<List<Object>>> replies, Duration timeout, String description)
            throws RedisUnavailableException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisFuture<List<Object>> reply : replies) {
            try {
                reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                // examined by the caller
            } catch (TimeoutException e) {
                throw new RedisUnavailableException("Redis " + description + ": no answer within " + timeout, null);
            } catch (InterruptedException e) {
                throw interrupted(e, description);
            }
        }
    }

    /** The reply of a call {@link #pipelined} waited for; a failed one as the exception the caller gets. */
    public static List<Object> replyOf(RedisFuture<List<Object>> reply, String description)
            throws RedisUnavailableException {
        try {
            return reply.get();
        } catch (InterruptedException e) {
            throw interrupted(e, description);
        } catch (ExecutionException e) {
            throw new RedisUnavailableException("Redis " + description + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    private static RedisUnavailableException interrupted(InterruptedException e, String description) {
        Thread.currentThread().interrupt();
        return new RedisUnavailableException("interrupted while calling Redis " + description, e);
    }

    private static boolean isNoScript(RedisFuture<List<Object>> reply) {
        if (!reply.isDone()) {
            return false;
        }
        try {
            reply.get();
            return false;
        } catch (ExecutionException e) {
            return e.getCause() instanceof RedisNoScriptException
                    || (e.getCause() != null && String.valueOf(e.getCause().getMessage()).startsWith("NOSCRIPT"));
        } catch (InterruptedException | CancellationException e) {
            return false;
        }
    }

    /** Where the scripts run, without credentials, for logs. */
    public String description() {
        return redis.description();
    }

    private RedisConnection<String, String> connection() {
        RedisConnection<String, String> c = connection;
        if (c == null) {
            synchronized (this) {
                if (connection == null) {
                    connection = redis.connect(StringCodec.UTF8);
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
