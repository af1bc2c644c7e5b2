package dev.shaper.internals.admission;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Token buckets in Redis, through Lettuce: the script is loaded once and run with EVALSHA, and loaded again
 * when Redis answers NOSCRIPT (after a restart or {@code SCRIPT FLUSH}). Every call is bounded by the
 * timeout; any failure surfaces as {@link RedisUnavailableException}, never as a stuck stream thread.
 *
 * <p>Two connections: one for the per-record calls of the strict mode and the pings, one owned by the
 * batched mode's sync, which pipelines its commands (auto-flush off) so that all keys cost one round trip.
 */
public final class RedisTokenBuckets implements AutoCloseable {

    private final RedisClient client;
    private final ClientResources resources;
    private final Duration timeout;
    private final String description;
    private volatile StatefulRedisConnection<byte[], byte[]> calls;
    private volatile StatefulRedisConnection<byte[], byte[]> pipeline;

    /**
     * @param uri     {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS
     * @param timeout the longest any command may take; a slower Redis counts as down
     */
    public RedisTokenBuckets(String uri, Duration timeout, Duration reconnectDelay) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(timeout);
        this.timeout = timeout;
        this.description = describe(redisUri);
        this.resources = ClientResources.builder().reconnectDelay(Delay.constant(reconnectDelay)).build();
        this.client = RedisClient.create(resources, redisUri);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout.multipliedBy(4)).build())
                // While disconnected, fail at once instead of queuing commands until their timeout.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
    }

    /**
     * How often Lettuce retries a lost connection, for a monitor that pings every {@code pingInterval}: a fifth
     * of it, so that a Redis that is back is connected again well before the next ping, and admission is back
     * on Redis within two ping intervals.
     */
    public static Duration reconnectDelayFor(Duration pingInterval) {
        return pingInterval.dividedBy(5);
    }

    /** The URI without its password, for logs. */
    public String description() {
        return description;
    }

    /** Takes {@code cost} tokens from the shared bucket if enough exist (the strict mode). */
    public AdmissionDecision take(byte[] admissionKey, AdmissionRule rule, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        byte[][] keys = {TokenBucketScript.bucketName(admissionKey)};
        byte[][] args = TokenBucketScript.args(rule, cost, TokenBucketScript.Mode.TAKE);
        try {
            StatefulRedisConnection<byte[], byte[]> c = calls();
            List<Object> reply;
            try {
                reply = c.sync().evalsha(TokenBucketScript.SHA, ScriptOutputType.MULTI, keys, args);
            } catch (RedisNoScriptException e) {
                reply = c.sync().eval(TokenBucketScript.SOURCE, ScriptOutputType.MULTI, keys, args);
            }
            return TokenBucketScript.parse(reply).toDecision();
        } catch (RedisCommandExecutionException e) {
            if (BucketUnusableException.isWrongType(e.getMessage())) {
                throw new BucketUnusableException("Redis key " + new String(keys[0], StandardCharsets.UTF_8)
                        + " is not a token bucket: " + e.getMessage(), e);
            }
            throw new RedisUnavailableException("Redis " + description + ": " + e.getMessage(), e);
        } catch (RedisException | IllegalStateException e) {
            throw new RedisUnavailableException("Redis " + description + ": " + e.getMessage(), e);
        }
    }

    /** One consumption report of the batched mode. */
    public record Charge(byte[] admissionKey, AdmissionRule rule, double consumed) {
    }

    /**
     * Charges what was admitted locally to the shared buckets, in one pipelined round trip bounded by the timeout
     * (so keep a call to a few hundred charges: the batched mode sends them in chunks), and returns
     * each bucket's balance afterwards (which includes what other instances and services consumed), or NaN for a
     * bucket whose key holds another type of value.
     *
     * <p>Redis answers NOSCRIPT to an EVALSHA it cannot run (after a restart or {@code SCRIPT FLUSH}); only
     * those charges are sent again, the first with the script's source, which loads it: a charge that did run
     * is never sent twice. A timeout leaves the outcome unknown: the exception then means "maybe charged".
     */
    public List<Double> charge(List<Charge> charges) throws RedisUnavailableException {
        if (charges.isEmpty()) {
            return List.of();
        }
        try {
            StatefulRedisConnection<byte[], byte[]> c = pipeline();
            List<Integer> all = new ArrayList<>(charges.size());
            for (int i = 0; i < charges.size(); i++) {
                all.add(i);
            }
            List<RedisFuture<List<Object>>> replies = send(c, charges, all, false);
            await(replies);
            List<Integer> noScript = new ArrayList<>();
            for (int i = 0; i < replies.size(); i++) {
                if (isNoScript(replies.get(i))) {
                    noScript.add(i);
                }
            }
            if (!noScript.isEmpty()) {
                List<RedisFuture<List<Object>>> retries = send(c, charges, noScript, true);
                await(retries);
                for (int k = 0; k < noScript.size(); k++) {
                    replies.set(noScript.get(k), retries.get(k));
                }
            }
            List<Double> balances = new ArrayList<>(replies.size());
            for (RedisFuture<List<Object>> reply : replies) {
                // A key of the wrong type spoils only its own bucket: NaN, and the mirror stays local.
                balances.add(BucketUnusableException.isWrongType(reply.getError()) ? Double.NaN
                        : TokenBucketScript.parse(reply.get()).tokensLeft());
            }
            return balances;
        } catch (RedisException | IllegalStateException e) {
            throw new RedisUnavailableException("Redis " + description + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("interrupted while charging Redis " + description, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new RedisUnavailableException("Redis " + description + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    /** Pipelines the charges at {@code indexes}; with the source, the first one is an EVAL that loads the script. */
    private List<RedisFuture<List<Object>>> send(StatefulRedisConnection<byte[], byte[]> c, List<Charge> charges,
                                                 List<Integer> indexes, boolean withSource) {
        List<RedisFuture<List<Object>>> replies = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            Charge charge = charges.get(i);
            byte[][] keys = {TokenBucketScript.bucketName(charge.admissionKey())};
            byte[][] args = TokenBucketScript.args(charge.rule(), charge.consumed(), TokenBucketScript.Mode.CHARGE);
            // Redis runs a pipeline in order: once the EVAL has loaded the script, EVALSHA finds it.
            replies.add(withSource && replies.isEmpty()
                    ? c.async().eval(TokenBucketScript.SOURCE, ScriptOutputType.MULTI, keys, args)
                    : c.async().evalsha(TokenBucketScript.SHA, ScriptOutputType.MULTI, keys, args));
        }
        c.flushCommands();
        return replies;
    }

    /**
     * Waits until every reply is in, failed ones included (unlike {@link LettuceFutures#awaitAll}, which throws
     * at the first failed one and so hides whether the others ran), at most the timeout in all.
     */
    private void await(List<RedisFuture<List<Object>>> replies) throws InterruptedException,
            RedisUnavailableException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisFuture<List<Object>> reply : replies) {
            try {
                reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // examined by the caller
            } catch (java.util.concurrent.TimeoutException e) {
                throw new RedisUnavailableException("Redis " + description + ": no answer within " + timeout, null);
            }
        }
    }

    private static boolean isNoScript(RedisFuture<List<Object>> reply) {
        if (!reply.isDone()) {
            return false;
        }
        try {
            reply.get();
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause() instanceof RedisNoScriptException
                    || (e.getCause() != null && String.valueOf(e.getCause().getMessage()).startsWith("NOSCRIPT"));
        } catch (InterruptedException | java.util.concurrent.CancellationException e) {
            return false;
        }
    }

    /** True if Redis answers PING within the timeout. */
    public boolean ping() {
        try {
            return "PONG".equals(calls().sync().ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    private StatefulRedisConnection<byte[], byte[]> calls() {
        StatefulRedisConnection<byte[], byte[]> c = calls;
        if (c == null) {
            synchronized (this) {
                if (calls == null) {
                    calls = client.connect(ByteArrayCodec.INSTANCE);
                }
                c = calls;
            }
        }
        return c;
    }

    private StatefulRedisConnection<byte[], byte[]> pipeline() {
        StatefulRedisConnection<byte[], byte[]> c = pipeline;
        if (c == null) {
            synchronized (this) {
                if (pipeline == null) {
                    StatefulRedisConnection<byte[], byte[]> p = client.connect(ByteArrayCodec.INSTANCE);
                    p.setAutoFlushCommands(false);
                    pipeline = p;
                }
                c = pipeline;
            }
        }
        return c;
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** {@code redis://host:port/db}, with any user and password left out. */
    static String describe(RedisURI uri) {
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort()
                + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
    }
}
