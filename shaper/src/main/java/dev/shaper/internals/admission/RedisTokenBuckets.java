package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisCallObserver;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.redis.RedisFailure;
import dev.shaper.internals.redis.RedisScript;
import dev.shaper.internals.redis.RedisUnavailableException;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import reactor.core.Disposable;

/**
 * Admission's shared state in Redis, through Lettuce: token buckets ({@code token-bucket.lua}) and, for other
 * policies, the limits scripts ({@link LimitScript}: several token buckets per key, fixed and sliding windows). Each
 * script is loaded once and run with EVALSHA, and loaded again when Redis answers NOSCRIPT (after a restart or
 * {@code SCRIPT FLUSH}). Every call is bounded by the timeout; any failure surfaces as {@link
 * RedisUnavailableException}, never as a stuck stream thread.
 *
 * <p>Two connections: one for the per-record calls of the strict mode and the pings, one owned by the
 * batched mode's sync, which pipelines its commands (auto-flush off) so that all keys cost one round trip.
 */
public final class RedisTokenBuckets implements AutoCloseable {

    /** Buckets charged per script call: enough to spare Redis most per-call work, short enough not to block it. */
    static final int KEYS_PER_CALL = 128;

    /**
     * Keys charged per pipelined round trip: a few script calls (see {@link #KEYS_PER_CALL}), so that a round trip
     * stays far inside the timeout of a healthy Redis, while a sync of many keys takes few round trips (the figures
     * are in the benchmark notes).
     */
    static final int CHARGE_CHUNK = 1024;

    private final RedisClients.Client redis;
    /** Whether the client is this object's alone, made for it (tests, tools), so that it closes it too. */
    private final boolean ownsClient;
    private final List<RedisConnectionStateListener> listeners = new CopyOnWriteArrayList<>();
    private volatile StatefulRedisConnection<byte[], byte[]> calls;
    private volatile StatefulRedisConnection<byte[], byte[]> pipeline;
    private volatile RedisCallObserver observer = RedisCallObserver.NONE;
    /** Told the name of each key a batched charge found holding another type of value, and Redis's error. */
    private volatile BiConsumer<String, String> unusableKeys = (key, error) -> { };
    private volatile Boolean cluster;
    /** Why Lettuce's last attempt to reconnect failed; null once connected. */
    private volatile Throwable reconnectFailure;
    private final Disposable reconnectEvents;

    /**
     * @param uri     {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS
     * @param timeout the longest any command may take; a slower Redis counts as down
     */
    public RedisTokenBuckets(String uri, Duration timeout, Duration reconnectDelay) {
        this(uri, timeout, reconnectDelay, null);
    }

    /**
     * @param trustedCas for {@code rediss://}: a PEM file of the certificate authorities to trust instead of the
     *                   JVM's truststore, or null for the JVM's
     */
    public RedisTokenBuckets(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas) {
        this(RedisClients.create(uri, timeout, reconnectDelay, trustedCas), true);
    }

    /**
     * Buckets on the instance's Redis client, which they share with the capacity and do not close: their own
     * connections on it, closed with them.
     */
    public RedisTokenBuckets(RedisClients.Client redis) {
        this(redis, false);
    }

    private RedisTokenBuckets(RedisClients.Client redis, boolean ownsClient) {
        this.redis = redis;
        this.ownsClient = ownsClient;
        // A command on a connection that is down fails with "not connected": the reconnect's own failure says
        // why (a password changed, a certificate expired), so it is kept for the error the caller gets.
        this.reconnectEvents = redis.resources().eventBus().get().subscribe(event -> {
            if (event instanceof ReconnectFailedEvent failed) {
                reconnectFailure = failed.getCause();
            }
        });
        onConnected(() -> reconnectFailure = null);
    }

    /**
     * Runs {@code action} whenever one of the client's connections to Redis is established (these buckets' or, on the
     * instance's client, the capacity's), the first time or again after an outage. It runs on a Lettuce I/O thread,
     * so it must hand its work over rather than block.
     */
    public void onConnected(Runnable action) {
        RedisConnectionStateListener listener = new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
                action.run();
            }
        };
        listeners.add(listener);
        redis.client().addListener(listener);
    }

    /** The URI without its password, for logs. */
    public String description() {
        return redis.description();
    }

    /** Reports every call's latency to {@code observer} from now on. */
    public void observeCalls(RedisCallObserver observer) {
        this.observer = observer;
    }

    /**
     * Tells {@code listener} the name of each key a batched charge finds holding another type of value (WRONGTYPE:
     * another service's key under the shaper's prefix), and the error; the charge's key is then decided locally.
     */
    public void reportUnusableKeys(BiConsumer<String, String> listener) {
        this.unusableKeys = listener;
    }

    private void unusable(byte[] key, String error) {
        unusableKeys.accept(new String(key, StandardCharsets.UTF_8), error);
    }

    /** Takes {@code cost} tokens from the shared bucket if enough exist (the strict mode). */
    public AdmissionDecision take(byte[] admissionKey, AdmissionRule rule, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        return observed("take", () -> takeUntimed(admissionKey, rule, cost));
    }

    private AdmissionDecision takeUntimed(byte[] admissionKey, AdmissionRule rule, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        byte[][] keys = {TokenBucketScript.bucketName(admissionKey)};
        byte[][] args = TokenBucketScript.args(rule, cost, TokenBucketScript.Mode.TAKE);
        try {
            return TokenBucketScript.parse(run(TOKEN_BUCKET, keys, args)).toDecision();
        } catch (RedisCommandExecutionException e) {
            if (BucketUnusableException.isWrongType(e.getMessage())) {
                throw new BucketUnusableException("Redis key " + new String(keys[0], StandardCharsets.UTF_8)
                        + " is not a token bucket: " + e.getMessage(), e);
            }
            throw unavailable(e);
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        }
    }

    /**
     * Takes {@code cost} from every limit of {@code policy} for {@code admissionKey} if each allows it, else from
     * none: one script call for all of the key's limits (the strict mode of a policy other than one token bucket).
     *
     * @return the key's state after the call; {@link SharedState#toDecision()} is the decision
     */
    public SharedState take(byte[] admissionKey, AdmissionPolicy policy, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        return observed("take", () -> takeUntimed(admissionKey, policy, cost));
    }

    /** A call to Redis, timed by {@link #observed}. */
    @FunctionalInterface
    private interface Untimed<T, E extends Exception> {
        T call() throws RedisUnavailableException, E;
    }

    /** Runs {@code untimed} and reports its latency, as a call of kind {@code kind}, to the observer. */
    private <T, E extends Exception> T observed(String kind, Untimed<T, E> untimed)
            throws RedisUnavailableException, E {
        long start = System.nanoTime();
        try {
            return untimed.call();
        } finally {
            observer.observe(kind, System.nanoTime() - start);
        }
    }

    /**
     * Runs {@code script} on the connection of the per-record calls: EVALSHA, and EVAL (which loads it) when Redis
     * answers NOSCRIPT.
     */
    private List<Object> run(RedisScript script, byte[][] keys, byte[][] args) {
        StatefulRedisConnection<byte[], byte[]> c = calls();
        try {
            return c.sync().evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            return c.sync().eval(script.source(), ScriptOutputType.MULTI, keys, args);
        }
    }

    private SharedState takeUntimed(byte[] admissionKey, AdmissionPolicy policy, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        LimitScript script = LimitScript.of(policy.algorithm());
        byte[][] keys = {script.keyName(admissionKey)};
        byte[][] args = new byte[4][];
        script.putArgs(args, 0, policy, new double[] {cost}, TokenBucketScript.Mode.TAKE);
        try {
            return script.parse(run(script.script(), keys, args), policy.size());
        } catch (RedisCommandExecutionException e) {
            if (BucketUnusableException.isWrongType(e.getMessage())) {
                throw new BucketUnusableException("Redis key " + new String(keys[0], StandardCharsets.UTF_8)
                        + " cannot hold " + policy.algorithm() + " state: " + e.getMessage(), e);
            }
            throw unavailable(e);
        } catch (RedisException | IllegalStateException | IllegalArgumentException | ClassCastException e) {
            throw unavailable(e); // a reply the script's contract does not allow counts as a failed call
        }
    }

    /**
     * Returns if the shaper's user may run the token-bucket script, every command it calls included; throws
     * otherwise. A PING proves Redis answers, not that an ACL lets the user run the script: without this check a
     * user allowed PING but not EVALSHA sent admission back to Redis at every ping, and out again at the next
     * record. The probe charges nothing to a bucket of its own, {@link TokenBucketScript#PROBE_KEY}, which no
     * admission key can name (and which expires within seconds).
     */
    public void probeScript() throws RedisUnavailableException {
        probeScript(AdmissionAlgorithm.TOKEN_BUCKET);
    }

    /**
     * Like {@link #probeScript()}, for the script of {@code algorithm}: a window script charges one unit to a
     * counter of the probe key that lives for two milliseconds.
     */
    public void probeScript(AdmissionAlgorithm algorithm) throws RedisUnavailableException {
        long start = System.nanoTime();
        byte[][] keys = {TokenBucketScript.PROBE_KEY.getBytes(StandardCharsets.UTF_8)};
        byte[][] args;
        RedisScript script;
        if (algorithm == AdmissionAlgorithm.TOKEN_BUCKET) {
            args = TokenBucketScript.args(new AdmissionRule(1, 1), 0, TokenBucketScript.Mode.CHARGE);
            script = TOKEN_BUCKET;
        } else {
            LimitScript limits = LimitScript.of(algorithm);
            args = new byte[4][];
            limits.putArgs(args, 0, AdmissionPolicy.of(algorithm, 1, 1), new double[] {1},
                    TokenBucketScript.Mode.CHARGE);
            script = limits.script();
        }
        try {
            run(script, keys, args);
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        } finally {
            observer.observe("ping", System.nanoTime() - start);
        }
    }

    /**
     * The exception for a failed call: with the reconnect's failure as its cause when the connection is down,
     * since "not connected" alone would hide a refused password or certificate.
     */
    private RedisUnavailableException unavailable(RuntimeException e) {
        Throwable reconnect = reconnectFailure;
        Throwable cause = reconnect != null && !isConnected() ? reconnect : e;
        return new RedisUnavailableException("Redis " + redis.description() + ": " + cause.getMessage(), cause);
    }

    private boolean isConnected() {
        StatefulRedisConnection<byte[], byte[]> c = calls;
        return c != null && c.isOpen();
    }

    /**
     * One consumption report of the batched mode, or with {@link #cap}, the most tokens the bucket may hold.
     *
     * @param rule the shared bucket's rule, not a local share of it
     */
    public record Charge(byte[] admissionKey, AdmissionRule rule, double consumed) {
    }

    /**
     * Charges what was admitted locally to the shared buckets, in one pipelined round trip bounded by the timeout
     * (so keep a call to a few hundred charges: the batched mode sends them in chunks), and returns
     * each bucket's balance afterwards (which includes what other instances and services consumed), or NaN for a
     * bucket whose key holds another type of value.
     *
     * <p>Several buckets go into one script call (see {@link ChargeCalls}). Redis answers NOSCRIPT to an
     * EVALSHA it cannot run (after a restart or {@code SCRIPT FLUSH}); only those calls are sent again, the
     * first with the script's source, which loads it: a charge that did run is never sent twice. A timeout
     * leaves the outcome unknown: the exception then means "maybe charged".
     */
    public List<Double> charge(List<Charge> charges) throws RedisUnavailableException {
        return charges.isEmpty() ? List.of()
                : observed("charge", () -> chargeUntimed(charges, TokenBucketScript.Mode.CHARGE));
    }

    /**
     * Lowers each bucket's balance to at most the charge's amount (never raises it), as {@link #charge} does
     * otherwise, and returns the balances afterwards: how a shaper that admitted from local buckets hands its
     * estimate of what is left back to Redis, whose buckets refilled meanwhile (or restarted full).
     */
    public List<Double> cap(List<Charge> ceilings) throws RedisUnavailableException {
        return ceilings.isEmpty() ? List.of()
                : observed("charge", () -> chargeUntimed(ceilings, TokenBucketScript.Mode.CAP));
    }

    /**
     * One consumption report of the batched mode for a policy other than one token bucket, or with {@link
     * #capLimits}, the most each limit may have left.
     *
     * @param policy  the shared policy, not a local share of it
     * @param amounts the consumption (one number, charged to every limit), or for a cap one ceiling per limit
     */
    public record LimitsCharge(byte[] admissionKey, AdmissionPolicy policy, double[] amounts) {
    }

    /**
     * {@link #charge} for other policies: charges every limit of each key with what was admitted locally, in one
     * pipelined round trip, and returns each key's state afterwards, or null for a key whose Redis state cannot be
     * used (another type of value).
     */
    public List<SharedState> chargeLimits(List<LimitsCharge> charges) throws RedisUnavailableException {
        return charges.isEmpty() ? List.of()
                : observed("charge", () -> limitsUntimed(charges, TokenBucketScript.Mode.CHARGE));
    }

    /** {@link #cap} for other policies: lowers what each limit has left to at most its ceiling, never raises it. */
    public List<SharedState> capLimits(List<LimitsCharge> ceilings) throws RedisUnavailableException {
        return ceilings.isEmpty() ? List.of()
                : observed("charge", () -> limitsUntimed(ceilings, TokenBucketScript.Mode.CAP));
    }

    /** Groups the charges by script, then into calls as {@link ChargeCalls} does, and pipelines them all at once. */
    private List<SharedState> limitsUntimed(List<LimitsCharge> charges, TokenBucketScript.Mode mode)
            throws RedisUnavailableException {
        StatefulRedisConnection<byte[], byte[]> c;
        List<Call> calls = new ArrayList<>();
        List<LimitScript> scripts = new ArrayList<>();
        List<List<Integer>> members = new ArrayList<>();
        try {
            c = pipeline();
            for (LimitScript script : LimitScript.all()) {
                List<Integer> mine = new ArrayList<>();
                List<byte[]> names = new ArrayList<>();
                for (int i = 0; i < charges.size(); i++) {
                    if (charges.get(i).policy().algorithm() == script.algorithm()) {
                        mine.add(i);
                        names.add(script.keyName(charges.get(i).admissionKey()));
                    }
                }
                for (List<Integer> group : ChargeCalls.group(names, isCluster(), KEYS_PER_CALL)) {
                    byte[][] keys = new byte[group.size()][];
                    byte[][] args = new byte[4 * group.size()][];
                    List<Integer> indexes = new ArrayList<>(group.size());
                    for (int j = 0; j < group.size(); j++) {
                        int index = mine.get(group.get(j));
                        LimitsCharge charge = charges.get(index);
                        keys[j] = names.get(group.get(j));
                        script.putArgs(args, j, charge.policy(), charge.amounts(), mode);
                        indexes.add(index);
                    }
                    calls.add(new Call(script.script(), keys, args));
                    scripts.add(script);
                    members.add(indexes);
                }
            }
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        }
        try {
            List<RedisFuture<List<Object>>> replies = pipelined(c, calls);
            SharedState[] states = new SharedState[charges.size()];
            for (int k = 0; k < calls.size(); k++) {
                RedisFuture<List<Object>> reply = replies.get(k);
                if (BucketUnusableException.isWrongType(reply.getError())) {
                    // a call for one key fails as a whole on a counter of the wrong type: null
                    Arrays.stream(calls.get(k).keys()).forEach(key -> unusable(key, reply.getError()));
                    continue;
                }
                List<Integer> indexes = members.get(k);
                List<Integer> limits = new ArrayList<>(indexes.size());
                for (int index : indexes) {
                    limits.add(charges.get(index).policy().size());
                }
                List<SharedState> parsed = scripts.get(k).parseAll(replyOf(reply), limits);
                for (int j = 0; j < indexes.size(); j++) {
                    states[indexes.get(j)] = parsed.get(j);
                    if (parsed.get(j) == null) {
                        unusable(calls.get(k).keys()[j], "WRONGTYPE");
                    }
                }
            }
            return Arrays.asList(states);
        } catch (RedisException | IllegalStateException | IllegalArgumentException | ClassCastException e) {
            throw unavailable(e);
        }
    }

    private List<Double> chargeUntimed(List<Charge> charges, TokenBucketScript.Mode mode)
            throws RedisUnavailableException {
        StatefulRedisConnection<byte[], byte[]> c;
        List<byte[]> names = new ArrayList<>(charges.size());
        List<List<Integer>> calls;
        try {
            c = pipeline();
            for (Charge charge : charges) {
                names.add(TokenBucketScript.bucketName(charge.admissionKey()));
            }
            calls = ChargeCalls.group(names, isCluster(), KEYS_PER_CALL);
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        }
        return chargeCalls(c, charges, names, calls, mode);
    }

    /** Sends the script calls of {@code calls} in one pipeline and returns each charge's balance afterwards. */
    private List<Double> chargeCalls(StatefulRedisConnection<byte[], byte[]> c, List<Charge> charges,
                                     List<byte[]> names, List<List<Integer>> calls, TokenBucketScript.Mode mode)
            throws RedisUnavailableException {
        try {
            List<RedisFuture<List<Object>>> replies = pipelined(c, bucketCalls(charges, names, calls, mode));
            Double[] balances = new Double[charges.size()];
            for (int k = 0; k < calls.size(); k++) {
                List<Integer> call = calls.get(k);
                RedisFuture<List<Object>> reply = replies.get(k);
                if (BucketUnusableException.isWrongType(reply.getError())) {
                    // Only a call for one bucket fails as a whole on a key of the wrong type (see the script).
                    call.forEach(i -> balances[i] = Double.NaN);
                    call.forEach(i -> unusable(names.get(i), reply.getError()));
                    continue;
                }
                List<TokenBucketScript.Result> results = TokenBucketScript.parseAll(replyOf(reply), call.size());
                for (int j = 0; j < call.size(); j++) {
                    // A key of the wrong type spoils only its own bucket: NaN, and the mirror stays local.
                    TokenBucketScript.Result result = results.get(j);
                    balances[call.get(j)] = result == null ? Double.NaN : result.tokensLeft();
                    if (result == null) {
                        unusable(names.get(call.get(j)), "WRONGTYPE");
                    }
                }
            }
            return List.of(balances);
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        }
    }

    /** One script call of a pipeline. */
    private record Call(RedisScript script, byte[][] keys, byte[][] args) {
    }

    /** The token-bucket script's call for each group of charges. */
    private static List<Call> bucketCalls(List<Charge> charges, List<byte[]> names, List<List<Integer>> calls,
                                          TokenBucketScript.Mode mode) {
        List<Call> built = new ArrayList<>(calls.size());
        // Most buckets share a few rules: their rate and burst are formatted once per rule.
        java.util.Map<AdmissionRule, byte[][]> ruleArgs = new java.util.IdentityHashMap<>();
        for (List<Integer> call : calls) {
            byte[][] keys = new byte[call.size()][];
            byte[][] args = new byte[4 * call.size()][];
            for (int j = 0; j < call.size(); j++) {
                Charge charge = charges.get(call.get(j));
                keys[j] = names.get(call.get(j));
                TokenBucketScript.putArgs(args, j, ruleArgs.computeIfAbsent(charge.rule(), TokenBucketScript::ruleArgs),
                        charge.consumed(), mode);
            }
            built.add(new Call(TOKEN_BUCKET, keys, args));
        }
        return built;
    }

    private static final RedisScript TOKEN_BUCKET = new RedisScript(TokenBucketScript.SOURCE, TokenBucketScript.SHA);

    /**
     * Sends {@code calls} in one pipeline and waits for every reply; the calls Redis answers NOSCRIPT (after a
     * restart or {@code SCRIPT FLUSH}) are sent once more, the first of each script as an EVAL that loads it: a call
     * that did run is never sent twice. A timeout leaves the outcome unknown. Read each reply with {@link #replyOf}.
     */
    private List<RedisFuture<List<Object>>> pipelined(StatefulRedisConnection<byte[], byte[]> c, List<Call> calls)
            throws RedisUnavailableException {
        List<RedisFuture<List<Object>>> replies = send(c, calls, false);
        await(replies);
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
            await(retries);
            for (int k = 0; k < noScript.size(); k++) {
                replies.set(noScriptAt.get(k), retries.get(k));
            }
        }
        return replies;
    }

    /** Pipelines the calls; with the source, the first call of each script is an EVAL that loads it. */
    private static List<RedisFuture<List<Object>>> send(StatefulRedisConnection<byte[], byte[]> c, List<Call> calls,
                                                        boolean withSource) {
        List<RedisFuture<List<Object>>> replies = new ArrayList<>(calls.size());
        java.util.Set<String> loaded = new java.util.HashSet<>();
        for (Call call : calls) {
            // Redis runs a pipeline in order: once the EVAL has loaded the script, EVALSHA finds it.
            replies.add(withSource && loaded.add(call.script().sha())
                    ? c.async().eval(call.script().source(), ScriptOutputType.MULTI, call.keys(), call.args())
                    : c.async().evalsha(call.script().sha(), ScriptOutputType.MULTI, call.keys(), call.args()));
        }
        c.flushCommands();
        return replies;
    }

    /**
     * Whether the server is a Redis Cluster node, asked once: a script call may then only touch one slot's keys.
     * A server that refuses INFO (an ACL that allows only the scripts) is treated as a cluster node, since
     * grouping by slot is valid everywhere.
     */
    private boolean isCluster() {
        Boolean known = cluster;
        if (known == null) {
            try {
                String info = calls().sync().info("cluster");
                known = info != null && info.contains("cluster_enabled:1");
            } catch (RedisCommandExecutionException e) {
                known = true;
            }
            cluster = known;
        }
        return known;
    }

    /**
     * Waits until every reply is in, failed ones included (unlike {@link LettuceFutures#awaitAll}, which throws
     * at the first failed one and so hides whether the others ran), at most the timeout in all.
     */
    private void await(List<RedisFuture<List<Object>>> replies) throws RedisUnavailableException {
        long deadline = System.nanoTime() + redis.timeout().toNanos();
        for (RedisFuture<List<Object>> reply : replies) {
            try {
                reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // examined by the caller
            } catch (java.util.concurrent.TimeoutException e) {
                throw new RedisUnavailableException("Redis " + redis.description() + ": no answer within "
                        + redis.timeout(), null);
            } catch (InterruptedException e) {
                throw interrupted(e);
            }
        }
    }

    /** The reply of a call {@link #pipelined} waited for; a failed one as the exception the caller gets. */
    private List<Object> replyOf(RedisFuture<List<Object>> reply) throws RedisUnavailableException {
        try {
            return reply.get();
        } catch (InterruptedException e) {
            throw interrupted(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new RedisUnavailableException("Redis " + redis.description() + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    private RedisUnavailableException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new RedisUnavailableException("interrupted while charging Redis " + redis.description(), e);
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

    /**
     * Opens both connections and makes each one's first script call (with no bucket: it changes nothing), at
     * start, where a slow answer costs nothing: the first calls of a JVM load and compile the client's code paths,
     * and made by the batched mode's first sync they could outlast the timeout, counting a healthy Redis as down.
     * Failures are ignored: the calls that follow will tell.
     */
    public void warmUp() {
        try {
            calls().sync().eval(TokenBucketScript.SOURCE, ScriptOutputType.MULTI, new byte[0][]);
            // The window scripts too (with no key they change nothing): their first decision then finds them loaded.
            for (LimitScript script : List.of(LimitScript.FIXED_WINDOW, LimitScript.SLIDING_WINDOW)) {
                calls().sync().eval(script.script().source(), ScriptOutputType.MULTI, new byte[0][]);
            }
            // The sync's own path (grouping, pipelining, parsing), with one call for no bucket.
            chargeCalls(pipeline(), List.of(), List.of(), List.of(List.of()), TokenBucketScript.Mode.CHARGE);
            isCluster();
        } catch (RedisException | IllegalStateException | RedisUnavailableException e) {
            // not an outage: a warm-up only
        }
    }

    /**
     * Returns if Redis answers PING within the timeout; throws otherwise, with the cause that tells a Redis that
     * does not answer from one that refuses the credentials or the TLS handshake (see {@link RedisFailure}).
     */
    public void ping() throws RedisUnavailableException {
        long start = System.nanoTime();
        try {
            String reply = calls().sync().ping();
            if (!"PONG".equals(reply)) {
                throw new RedisUnavailableException("Redis " + redis.description() + " answered PING with " + reply,
                        null);
            }
        } catch (RuntimeException e) {
            throw unavailable(e);
        } finally {
            observer.observe("ping", System.nanoTime() - start);
        }
    }

    private StatefulRedisConnection<byte[], byte[]> calls() {
        StatefulRedisConnection<byte[], byte[]> c = calls;
        if (c == null) {
            synchronized (this) {
                if (calls == null) {
                    calls = redis.client().connect(ByteArrayCodec.INSTANCE);
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
                    StatefulRedisConnection<byte[], byte[]> p = redis.client().connect(ByteArrayCodec.INSTANCE);
                    p.setAutoFlushCommands(false);
                    pipeline = p;
                }
                c = pipeline;
            }
        }
        return c;
    }

    /** Closes these buckets' connections, and the client if it is theirs alone. */
    @Override
    public synchronized void close() {
        reconnectEvents.dispose();
        listeners.forEach(redis.client()::removeListener);
        if (calls != null) {
            calls.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
        if (ownsClient) {
            redis.close();
        }
    }
}
