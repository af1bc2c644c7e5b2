package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisCallObserver;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.redis.RedisConnection;
import dev.shaper.internals.redis.RedisFailure;
import dev.shaper.internals.redis.RedisScriptRunner;
import dev.shaper.internals.redis.RedisUnavailableException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import reactor.core.Disposable;

/**
 * Admission's shared state in Redis, through Lettuce: each algorithm's script ({@link AdmissionAlgorithm#script},
 * the contract in {@link LimitScript}), one call for all of a key's limits. Scripts run through {@link
 * RedisScriptRunner} (EVALSHA, and EVAL when Redis answers NOSCRIPT after a restart or {@code SCRIPT FLUSH}). Every
 * call is bounded by the timeout; any failure surfaces as {@link RedisUnavailableException}, never as a stuck stream
 * thread.
 *
 * <p>Two connections: one for the per-record calls of the strict mode and the pings, one owned by the
 * batched mode's sync, which pipelines its commands so that all keys cost one round trip. Either to one Redis or to a
 * Redis Cluster ({@link RedisConnection}): there each key's calls go to the master of its slot, and a batched sync
 * sends one script call per slot (see {@link ChargeCalls}).
 */
public final class RedisLimits implements AutoCloseable {

    /** Keys charged per script call: enough to spare Redis most per-call work, short enough not to block it. */
    static final int KEYS_PER_CALL = 128;

    /**
     * Under which the health check's probes run, one key per algorithm: outside every algorithm's prefix, so that no
     * admission key names it, and under {@code shaper:} like every key of the shaper.
     */
    public static final String PROBE_KEY = "shaper:probe:{admission}";

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
    private volatile RedisConnection<byte[], byte[]> calls;
    private volatile RedisConnection<byte[], byte[]> pipeline;
    private volatile RedisCallObserver observer = RedisCallObserver.NONE;
    /** Told the name of each key a batched charge found holding another type of value, and Redis's error. */
    private volatile BiConsumer<String, String> unusableKeys = (key, error) -> { };
    private volatile Boolean cluster;
    /** Why Lettuce's last attempt to reconnect failed; null once connected. */
    private volatile Throwable reconnectFailure;
    private final Disposable reconnectEvents;

    /**
     * @param uri     {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS, or a Redis
     *                Cluster's {@code redis-cluster://[user:password@]host:port[,host:port...]}
     * @param timeout the longest any command may take; a slower Redis counts as down
     */
    public RedisLimits(String uri, Duration timeout, Duration reconnectDelay) {
        this(uri, timeout, reconnectDelay, null);
    }

    /**
     * @param trustedCas for TLS: a PEM file of the certificate authorities to trust instead of the
     *                   JVM's truststore, or null for the JVM's
     */
    public RedisLimits(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas) {
        this(RedisClients.create(uri, timeout, reconnectDelay, trustedCas), true);
    }

    /**
     * Admission's state on the instance's Redis client, which it shares with the capacity and does not close: its own
     * connections on it, closed with it.
     */
    public RedisLimits(RedisClients.Client redis) {
        this(redis, false);
    }

    private RedisLimits(RedisClients.Client redis, boolean ownsClient) {
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
     * Runs {@code action} whenever one of the client's connections to Redis is established (these limits' or, on the
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

    /**
     * Takes {@code cost} from every limit of {@code policy} for {@code admissionKey} if each allows it, else from
     * none: one script call for all of the key's limits (the strict mode).
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

    private SharedState takeUntimed(byte[] admissionKey, AdmissionPolicy policy, double cost)
            throws RedisUnavailableException, BucketUnusableException {
        AdmissionAlgorithm algorithm = policy.algorithm();
        byte[][] keys = {LimitScript.keyName(algorithm, admissionKey)};
        byte[][] args = new byte[4][];
        LimitScript.putArgs(args, 0, policy, new double[] {cost}, LimitScript.Mode.TAKE);
        try {
            return LimitScript.parse(algorithm,
                    RedisScriptRunner.evaluate(calls().sync(), algorithm.script(), keys, args), policy.size());
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
     * Returns if the shaper's user may run the script of {@code algorithm}, every command it calls included; throws
     * otherwise. A PING proves Redis answers, not that an ACL lets the user run the script: without this check a
     * user allowed PING but not EVALSHA sent admission back to Redis at every ping, and out again at the next
     * record. The probe charges one unit to a limit of one per millisecond, on a key of its own under {@link
     * #PROBE_KEY}, which no admission key can name (and which expires within a second).
     */
    public void probeScript(AdmissionAlgorithm algorithm) throws RedisUnavailableException {
        long start = System.nanoTime();
        byte[][] keys = {(PROBE_KEY + ":" + algorithm.configName()).getBytes(StandardCharsets.UTF_8)};
        byte[][] args = new byte[4][];
        LimitScript.putArgs(args, 0, AdmissionPolicy.of(algorithm, 1, 1), new double[] {1}, LimitScript.Mode.CHARGE);
        try {
            RedisScriptRunner.evaluate(calls().sync(), algorithm.script(), keys, args);
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
        RedisConnection<byte[], byte[]> c = calls;
        return c != null && c.isOpen();
    }

    /**
     * One consumption report of the batched mode, or with {@link #cap}, the most each limit may have left.
     *
     * @param policy  the shared policy, not a local share of it
     * @param amounts the consumption (one number, charged to every limit), or for a cap one ceiling per limit
     */
    public record Charge(byte[] admissionKey, AdmissionPolicy policy, double[] amounts) {
    }

    /**
     * What a pipelined charge did, charge by charge (in the order given): the state afterwards, or null for a key
     * whose Redis state cannot be used (another type of value) and for a charge Redis refused. A call Redis answered
     * with an error (a refusal: an ACL that denies a script's command, out of memory) did not run, while the other
     * calls of the same round trip did: the refused charges are in {@code refused}, and the first refusal is
     * {@code failure} (null when none was refused).
     */
    public record Charged(List<SharedState> states, BitSet refused, RedisUnavailableException failure) {

        /** The states, or the failure when a call was refused. */
        List<SharedState> orThrow() throws RedisUnavailableException {
            if (failure != null) {
                throw failure;
            }
            return states;
        }
    }

    /**
     * Charges every limit of each key with what was admitted locally, in one pipelined round trip bounded by the
     * timeout (so keep a call to a few hundred charges: the batched mode sends them in chunks), and returns each key's
     * state afterwards (which includes what other instances and services consumed).
     *
     * <p>Several keys go into one script call (see {@link ChargeCalls}). A charge that did run is never sent twice
     * (see {@link RedisScriptRunner#pipelined}): what Redis refused is named in the result, apart from what ran. A
     * timeout or a lost connection leaves the outcome unknown: the exception then means "maybe charged".
     */
    public Charged charge(List<Charge> charges) throws RedisUnavailableException {
        return charges.isEmpty() ? new Charged(List.of(), new BitSet(), null)
                : observed("charge", () -> chargeUntimed(charges, LimitScript.Mode.CHARGE));
    }

    /**
     * Lowers what each limit has left to at most its ceiling (never raises it), and returns the states afterwards: how
     * a shaper that admitted from local state hands its estimate of what is left back to Redis, whose state refilled
     * meanwhile (or restarted empty). A cap sent again lowers nothing twice: any refusal fails the whole call.
     */
    public List<SharedState> cap(List<Charge> ceilings) throws RedisUnavailableException {
        return ceilings.isEmpty() ? List.of()
                : observed("charge", () -> chargeUntimed(ceilings, LimitScript.Mode.CAP)).orThrow();
    }

    /** One script call of a pipelined charge: its algorithm, and the places in the charges of its keys, in order. */
    private record ChargeCall(RedisScriptRunner.Call call, AdmissionAlgorithm algorithm, List<Integer> indexes) {
    }

    /** Groups the charges by script, then into calls as {@link ChargeCalls} does, and pipelines them all at once. */
    private Charged chargeUntimed(List<Charge> charges, LimitScript.Mode mode)
            throws RedisUnavailableException {
        RedisConnection<byte[], byte[]> c;
        List<ChargeCall> calls = new ArrayList<>();
        try {
            c = pipeline();
            for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
                List<Integer> mine = new ArrayList<>();
                List<byte[]> names = new ArrayList<>();
                for (int i = 0; i < charges.size(); i++) {
                    if (charges.get(i).policy().algorithm().equals(algorithm)) {
                        mine.add(i);
                        names.add(LimitScript.keyName(algorithm, charges.get(i).admissionKey()));
                    }
                }
                for (List<Integer> group : ChargeCalls.group(names, isCluster(), KEYS_PER_CALL)) {
                    byte[][] keys = new byte[group.size()][];
                    byte[][] args = new byte[4 * group.size()][];
                    List<Integer> indexes = new ArrayList<>(group.size());
                    for (int j = 0; j < group.size(); j++) {
                        int index = mine.get(group.get(j));
                        Charge charge = charges.get(index);
                        keys[j] = names.get(group.get(j));
                        LimitScript.putArgs(args, j, charge.policy(), charge.amounts(), mode);
                        indexes.add(index);
                    }
                    calls.add(new ChargeCall(new RedisScriptRunner.Call(algorithm.script(), keys, args), algorithm,
                            indexes));
                }
            }
        } catch (RedisException | IllegalStateException e) {
            throw unavailable(e);
        }
        try {
            List<RedisFuture<List<Object>>> replies = RedisScriptRunner.pipelined(c,
                    calls.stream().map(ChargeCall::call).toList(), redis.timeout(), redis.description());
            SharedState[] states = new SharedState[charges.size()];
            BitSet refused = new BitSet();
            RedisUnavailableException failure = null;
            for (int k = 0; k < calls.size(); k++) {
                RedisFuture<List<Object>> reply = replies.get(k);
                ChargeCall call = calls.get(k);
                if (BucketUnusableException.isWrongType(reply.getError())) {
                    // a call for one key fails as a whole on a counter of the wrong type: null
                    Arrays.stream(call.call().keys()).forEach(key -> unusable(key, reply.getError()));
                    continue;
                }
                List<Integer> indexes = call.indexes();
                List<Object> answer;
                try {
                    answer = RedisScriptRunner.replyOf(reply, redis.description());
                } catch (RedisUnavailableException e) {
                    if (!(e.getCause() instanceof RedisCommandExecutionException)) {
                        throw e; // no answer: maybe charged
                    }
                    indexes.forEach(refused::set); // Redis refused the call: it did not run, unlike the others
                    failure = failure == null ? e : failure;
                    continue;
                }
                List<Integer> limits = new ArrayList<>(indexes.size());
                for (int index : indexes) {
                    limits.add(charges.get(index).policy().size());
                }
                List<SharedState> parsed = LimitScript.parseAll(call.algorithm(), answer, limits);
                for (int j = 0; j < indexes.size(); j++) {
                    states[indexes.get(j)] = parsed.get(j);
                    if (parsed.get(j) == null) {
                        unusable(call.call().keys()[j], "WRONGTYPE");
                    }
                }
            }
            return new Charged(Arrays.asList(states), refused, failure);
        } catch (RedisException | IllegalStateException | IllegalArgumentException | ClassCastException e) {
            throw unavailable(e);
        }
    }

    /**
     * Whether a script call may only touch one slot's keys: on a Redis Cluster, or on a server that is a cluster
     * node (a URI that names one node of a cluster with one shard, or a proxy in front of one), asked once. A server
     * that refuses INFO (an ACL that allows only the scripts) is treated as a cluster node, since grouping by slot is
     * valid everywhere.
     */
    private boolean isCluster() {
        if (redis.isCluster()) {
            return true;
        }
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
     * Opens both connections and makes each one's first script calls (with no key: they change nothing), at start,
     * where a slow answer costs nothing: the first calls of a JVM load and compile the client's code paths, and made
     * by the batched mode's first sync they could outlast the timeout, counting a healthy Redis as down. Every
     * algorithm's script is loaded, on every master of a cluster, so that its first decision finds it; both
     * connections connect to every master. Failures are ignored: the calls that follow will tell.
     */
    public void warmUp() {
        try {
            for (RedisClusterCommands<byte[], byte[]> master : calls().masters()) {
                for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
                    RedisScriptRunner.evaluate(master, algorithm.script(), new byte[0][], new byte[0][]);
                }
            }
            List<RedisScriptRunner.Call> none = new ArrayList<>();
            for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
                none.add(new RedisScriptRunner.Call(algorithm.script(), new byte[0][], new byte[0][]));
            }
            pipeline().masters(); // a cluster's sync then finds its connection to every master open
            // The sync's own path (pipelining, waiting, reading), with calls for no key.
            for (RedisFuture<List<Object>> reply : RedisScriptRunner.pipelined(pipeline(), none, redis.timeout(),
                    redis.description())) {
                RedisScriptRunner.replyOf(reply, redis.description());
            }
            isCluster();
        } catch (RedisException | IllegalStateException | RedisUnavailableException e) {
            // not an outage: a warm-up only
        }
    }

    /**
     * Returns if Redis answers PING within the timeout (on a cluster: every slot has a master, and each answers);
     * throws otherwise, with the cause that tells a Redis that does not answer from one that refuses the credentials
     * or the TLS handshake (see {@link RedisFailure}).
     */
    public void ping() throws RedisUnavailableException {
        long start = System.nanoTime();
        try {
            String reply = calls().ping();
            if (!"PONG".equals(reply)) {
                throw new RedisUnavailableException("Redis " + redis.description() + " answered PING with " + reply,
                        null);
            }
            if (redis.isCluster()) {
                // The hand-back and the sync after the ping then find their connection to each master open (one a
                // failover promoted included), rather than opening it within their timeout.
                pipeline().masters();
            }
        } catch (RuntimeException e) {
            throw unavailable(e);
        } finally {
            observer.observe("ping", System.nanoTime() - start);
        }
    }

    private RedisConnection<byte[], byte[]> calls() {
        RedisConnection<byte[], byte[]> c = calls;
        if (c == null) {
            synchronized (this) {
                if (calls == null) {
                    calls = redis.connect(ByteArrayCodec.INSTANCE);
                }
                c = calls;
            }
        }
        return c;
    }

    private RedisConnection<byte[], byte[]> pipeline() {
        RedisConnection<byte[], byte[]> c = pipeline;
        if (c == null) {
            synchronized (this) {
                if (pipeline == null) {
                    pipeline = redis.connect(ByteArrayCodec.INSTANCE);
                }
                c = pipeline;
            }
        }
        return c;
    }

    /** Closes these limits' connections, and the client if it is theirs alone. */
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
