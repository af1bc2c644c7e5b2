package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisCallObserver;
import dev.shaper.internals.redis.RedisFailure;
import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.internals.scheduling.BackgroundScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission for one shaper instance, shared by all its stream threads: token buckets or window counters in Redis
 * (strict or batched), and in-process state while Redis is down or when none is configured.
 *
 * <p>On a Redis error or timeout the controller switches to local buckets, whose rate and burst are the
 * rule's divided by the number of live shaper instances, so that the global limit roughly holds through an
 * outage. The background work ({@link BackgroundScheduler}) pings Redis every ping interval while it is down and
 * switches back when it answers, and runs the batched mode's sync. Each decision is made by the backend in
 * force ({@link AdmissionBackend}); the controller only switches between Redis and the local fallback.
 *
 * <p>A switch carries each key's balance over instead of granting it a fresh burst: a local bucket starts from
 * this instance's share (1/N) of the balance last known from Redis (the strict mode's last answer, the batched
 * mode's mirror), and before admission returns to Redis each shared bucket is lowered to at most N times the
 * local balance (never raised): Redis's buckets refilled while nobody could charge them, or restarted full.
 * Each switch is logged once and counted, and why Redis cannot be used ({@link RedisFailure}: no answer, or a
 * refusal of the credentials, a command or the TLS handshake, which only a configuration change will cure) is
 * kept for the metrics and the health detail, and logged again only when it changes.
 */
public final class AdmissionController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdmissionController.class);
    /** How often full local buckets, which carry no information, are forgotten. */
    private static final Duration EVICT_INTERVAL = Duration.ofSeconds(10);

    /** Where decisions are made right now. */
    public enum Backend { REDIS, LOCAL }

    private final RedisLimits redis;
    private final AdmissionMode mode;
    private final LiveInstances liveInstances;
    private final LocalBackend local;
    /** Null without Redis. */
    private final RedisBackend shared;
    private final Duration pingInterval;
    private final BackgroundScheduler background;
    private final LongSupplier nanoTime;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean onRedis = new AtomicBoolean();
    /** Why Redis cannot be used, while admission is local although a Redis is configured; null otherwise. */
    private volatile RedisFailure failure;
    /** A kind of failure one ping saw that differs from {@link #failure}'s: reported once the next ping sees it too. */
    private RedisFailure.Kind unconfirmedKind;
    private final AtomicLong switchesToLocal = new AtomicLong();
    private final AtomicLong switchesToRedis = new AtomicLong();
    private final AtomicLong lastUnusableLogNanos = new AtomicLong(Long.MIN_VALUE / 2);
    private final AtomicLong unusableKeys = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * The algorithms whose Redis scripts admission has run: the token bucket's always, the others' once a rule used
     * them. Each ping runs each of these scripts, since a user may be allowed one script's commands and not another's.
     */
    private final Set<AdmissionAlgorithm> scriptsInUse = new CopyOnWriteArraySet<>(List.of(
            AdmissionAlgorithm.TOKEN_BUCKET));

    /**
     * An admission that decides locally until {@link #start}ed; constructing it has no side effect.
     *
     * @param redis         the shared buckets, or null to admit from local buckets only
     * @param liveInstances counts the live shaper instances, among which the local fallback divides each rule;
     *                      asked in the background every ping interval, never per record, and may block
     * @param background    runs the pings, the sync and the other periodic work; {@link #close} closes it
     * @param nanoTime      the clock of the local buckets and the mirrors, in nanoseconds
     */
    public AdmissionController(RedisLimits redis, AdmissionMode mode, Duration syncInterval,
                               Duration pingInterval, IntSupplier liveInstances, BackgroundScheduler background,
                               LongSupplier nanoTime) {
        this(redis, mode, syncInterval, pingInterval, liveInstances, 1, background, nanoTime);
    }

    /**
     * Like {@link #AdmissionController(RedisLimits, AdmissionMode, Duration, Duration, IntSupplier,
     * BackgroundScheduler, LongSupplier)}, with the local fallback dividing each rule by
     * {@code instancesBeforeCount} until the first count of the live instances succeeds: the most that can be
     * admitting at once (the input partitions), so that no start on local buckets admits above a limit.
     */
    public AdmissionController(RedisLimits redis, AdmissionMode mode, Duration syncInterval,
                               Duration pingInterval, IntSupplier liveInstances, int instancesBeforeCount,
                               BackgroundScheduler background, LongSupplier nanoTime) {
        this.redis = redis;
        this.mode = mode;
        this.liveInstances = new LiveInstances(liveInstances, instancesBeforeCount);
        this.local = new LocalBackend(this.liveInstances);
        this.shared = redis == null ? null : redisBackend(mode, redis, local, syncInterval, nanoTime);
        this.pingInterval = pingInterval;
        this.background = background;
        this.nanoTime = nanoTime;
        if (redis != null) {
            redis.reportUnusableKeys((key, error) -> unusableKey("Redis key " + key + " holds another type of value ("
                    + error + ")"));
        }
    }

    /**
     * Pings Redis, so that admission starts on Redis (its connections warmed up) or, saying why, on local
     * buckets, and schedules the periodic work: the pings while Redis cannot be used, the batched sync, the
     * eviction of full local buckets and the count of live instances. Call once.
     *
     * @throws IllegalStateException if called before
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("admission already started");
        }
        if (redis != null) {
            failure = firstPing(redis);
            onRedis.set(failure == null);
            if (onRedis.get()) {
                redis.warmUp();
                LOG.info("Admission: {} mode on Redis {}", mode.name().toLowerCase(java.util.Locale.ROOT),
                        redis.description());
            } else {
                switchesToLocal.incrementAndGet();
                log(failure, "Admission: Redis {} {}; admitting from local buckets until it can be used",
                        redis.description(), failure.describe());
            }
            background.scheduleWithFixedDelay(this::monitor, pingInterval, pingInterval);
            // A reconnect is the likeliest moment Redis answers again: ping then too, not only at the next tick.
            redis.onConnected(() -> background.execute(this::monitor));
            Duration sync = shared.syncInterval();
            if (sync != null) {
                background.scheduleWithFixedDelay(this::sync, sync, sync);
            }
        } else {
            LOG.info("Admission: no Redis configured; admitting from local buckets");
        }
        background.scheduleWithFixedDelay(() -> local.evictUnused(nanoTime.getAsLong()), EVICT_INTERVAL,
                EVICT_INTERVAL);
        background.scheduleWithFixedDelay(liveInstances::refresh, Duration.ZERO, pingInterval);
    }

    /** The backend of {@code mode} on {@code redis}, falling back to {@code local}. */
    private static RedisBackend redisBackend(AdmissionMode mode, RedisLimits redis, LocalBackend local,
                                             Duration syncInterval, LongSupplier nanoTime) {
        return switch (mode) {
            case STRICT -> new StrictRedisBackend(redis, local);
            case BATCHED -> new BatchedRedisBackend(redis, local, syncInterval, nanoTime);
        };
    }

    /** Null if Redis answers a ping at start, else why not; a refusal is not asked again. */
    private static RedisFailure firstPing(RedisLimits redis) {
        Set<AdmissionAlgorithm> tokenBucket = Set.of(AdmissionAlgorithm.TOKEN_BUCKET);
        RedisFailure first = ping(redis, tokenBucket);
        // The first command on a new connection includes its handshake: one slow answer is not an outage.
        return first == null || first.isRefusal() ? first : ping(redis, tokenBucket);
    }

    /**
     * Why Redis cannot be used, or null if it answers and lets the shaper's user run the scripts of {@code scripts}:
     * an ACL may allow PING and refuse EVALSHA, or a command one script calls (the window scripts' GET and INCRBY)
     * and not the others'.
     */
    private static RedisFailure ping(RedisLimits redis, Set<AdmissionAlgorithm> scripts) {
        try {
            redis.ping();
            for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
                if (scripts.contains(algorithm)) {
                    redis.probeScript(algorithm);
                }
            }
            return null;
        } catch (RedisUnavailableException e) {
            return RedisFailure.of(e);
        }
    }

    /** Logs at ERROR what only a configuration change cures, at WARN a Redis that does not answer. */
    private static void log(RedisFailure why, String format, Object... args) {
        if (why.isRefusal()) {
            LOG.error(format, args);
        } else {
            LOG.warn(format, args);
        }
    }

    /** Takes {@code cost} for {@code admissionKey} from every limit of {@code policy}, if each allows it. */
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost) {
        return admit(admissionKey, policy, cost, null);
    }

    /**
     * Takes {@code cost} for {@code admissionKey} from every limit of {@code policy} if each allows it, else from none;
     * a refusal's retry-after is the longest wait among the refusing limits. One Redis script call for all of the
     * key's limits in strict mode, the key's mirror in batched mode, and while Redis cannot be used this instance's
     * share of every limit.
     *
     * @param perKey what admission keeps for this key in state the caller looks up per record anyway (null for
     *               none): in batched mode the key's local mirror, so that a record does not look it up in the
     *               mirrors shared by all stream threads, a CPU-cache miss per record with many keys. A mirror a
     *               sync has forgotten is noticed and replaced. Other modes leave it alone.
     */
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey) {
        if (!scriptsInUse.contains(policy.algorithm())) {
            scriptsInUse.add(policy.algorithm());
        }
        long now = nanoTime.getAsLong();
        if (onRedis.get()) {
            try {
                return shared.admit(admissionKey, policy, cost, perKey, now);
            } catch (RedisUnavailableException e) {
                switchToLocal(e);
            } catch (BucketUnusableException e) {
                unusableKey(e.getMessage());
            }
        }
        return local.admit(admissionKey, policy, cost, perKey, now);
    }

    /** The backend that decides while admission is on Redis; null without Redis (for tests). */
    RedisBackend redisBackend() {
        return shared;
    }

    /** Reports the latency of every Redis call to {@code observer}; nothing happens without Redis. */
    public void observeRedisCalls(RedisCallObserver observer) {
        if (redis != null) {
            redis.observeCalls(observer);
        }
    }

    public Backend backend() {
        return onRedis.get() ? Backend.REDIS : Backend.LOCAL;
    }

    public AdmissionMode mode() {
        return mode;
    }

    /**
     * How many times a key's counter in Redis was found holding another type of value (WRONGTYPE), each decided
     * locally.
     */
    public long unusableKeys() {
        return unusableKeys.get();
    }

    public long switchesToLocal() {
        return switchesToLocal.get();
    }

    public long switchesToRedis() {
        return switchesToRedis.get();
    }

    /**
     * Why admission is on local buckets although a Redis is configured (see {@link RedisFailure}); null while
     * on Redis or without one.
     */
    public RedisFailure redisFailure() {
        return onRedis.get() ? null : failure;
    }

    /** One line for the health detail when admission is local for want of Redis; null otherwise. */
    public String healthDetail() {
        RedisFailure why = redisFailure();
        return why == null ? null : "admission on local buckets: Redis " + redis.description() + " " + why.describe();
    }

    /** The live shaper instances as last counted. */
    public int liveInstances() {
        return liveInstances.count();
    }

    /**
     * A key's counter in Redis holds another type of value: counted, and logged at most once a minute (a busy key
     * must not flood the log).
     */
    private void unusableKey(String what) {
        unusableKeys.incrementAndGet();
        long now = nanoTime.getAsLong();
        long last = lastUnusableLogNanos.get();
        if (now - last >= 60_000_000_000L && lastUnusableLogNanos.compareAndSet(last, now)) {
            LOG.error("Admission: {} (on {}); that key is admitted from a local bucket until the key is fixed"
                    + " (shaper_admission_unusable_keys_total counts each time)", what, redis.description());
        }
    }

    private void switchToLocal(Exception cause) {
        RedisFailure why = RedisFailure.of(cause);
        if (onRedis.get()) {
            failure = why; // before the switch, so that whoever sees admission local also sees why
        }
        if (onRedis.compareAndSet(true, false)) {
            switchesToLocal.incrementAndGet();
            log(why, "Admission: Redis {} failed, it {}; admitting from local buckets at 1/{} of each rate until it"
                    + " answers again", redis.description(), why.describe(), liveInstances());
        }
    }

    private void monitor() {
        if (onRedis.get()) {
            return;
        }
        RedisFailure why = ping(redis, scriptsInUse);
        if (why != null) {
            RedisFailure before = failure;
            if (before != null && before.kind() != why.kind() && why.kind() != unconfirmedKind) {
                // One ping's word is not a change: a refused handshake sometimes surfaces as a closed connection.
                unconfirmedKind = why.kind();
                return;
            }
            unconfirmedKind = null;
            failure = why;
            // Named once per change (e.g. Redis came back with another password), not at every ping.
            if (before == null || before.kind() != why.kind()) {
                log(why, "Admission: Redis {} {}; still admitting from local buckets", redis.description(),
                        why.describe());
            }
        } else if (handBack() && onRedis.compareAndSet(false, true)) {
            failure = null;
            switchesToRedis.incrementAndGet();
            LOG.info("Admission: Redis {} answers again; back on Redis", redis.description());
        }
    }

    /** Before admission returns to Redis: writes the local balances back ({@link HandBack}); false if Redis failed. */
    private boolean handBack() {
        try {
            shared.handBack(nanoTime.getAsLong());
            return true;
        } catch (RedisUnavailableException e) {
            failure = RedisFailure.of(e);
            return false;
        }
    }

    private void sync() {
        if (!onRedis.get()) {
            return;
        }
        try {
            shared.sync(nanoTime.getAsLong());
        } catch (RedisUnavailableException e) {
            switchToLocal(e);
        } catch (RuntimeException e) {
            LOG.error("Admission: batched sync failed unexpectedly", e);
        }
    }

    /**
     * Stops the background work (letting a running ping or sync finish), charges to Redis what the batched mode
     * admitted since its last sync, and closes the Redis connections. Close Kafka Streams first, so that nothing
     * is admitted meanwhile. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        background.close();
        if (redis != null) {
            if (onRedis.get() && !Thread.currentThread().isInterrupted()) {
                // Otherwise the consumption admitted since the last sync would never reach the shared buckets.
                try {
                    shared.flush(nanoTime.getAsLong());
                } catch (RedisUnavailableException e) {
                    LOG.warn("Admission: on close, could not charge the last batch to Redis {}: {}",
                            redis.description(), e.getMessage());
                } catch (RuntimeException e) {
                    LOG.error("Admission: on close, the last batched sync failed unexpectedly", e);
                }
            }
            redis.close();
        }
    }
}
