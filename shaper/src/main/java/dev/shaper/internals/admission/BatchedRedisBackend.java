package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The batched mode: each key is admitted from a local mirror of its shared state ({@link BatchedTokenBuckets} for a
 * single token bucket, {@link BatchedLimits} for every other policy), and every sync interval what the mirrors
 * admitted is charged to Redis, whose state they then take in. A sync charges the single buckets first, then the
 * other policies' keys: one more pipelined round trip when both are in use.
 */
final class BatchedRedisBackend implements RedisBackend {

    /** A mirror unused for this many sync intervals, with nothing to charge, is forgotten. */
    private static final int IDLE_SYNCS = 100;

    private final BatchedTokenBuckets mirrors = new BatchedTokenBuckets();
    private final BatchedLimits limitMirrors = new BatchedLimits();
    private final RedisTokenBuckets redis;
    private final LocalBackend local;
    private final Duration syncInterval;
    /** The mirrors' clock, read again when Redis's answer arrives (see {@link BatchedMirrors#sync}). */
    private final LongSupplier nanoTime;

    BatchedRedisBackend(RedisTokenBuckets redis, LocalBackend local, Duration syncInterval, LongSupplier nanoTime) {
        this.redis = redis;
        this.local = local;
        this.syncInterval = syncInterval;
        this.nanoTime = nanoTime;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionRule rule, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        return mirrors.tryTake(admissionKey, rule, cost, nowNanos, perKey);
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        return limitMirrors.tryTake(admissionKey, policy, cost, nowNanos, perKey);
    }

    @Override
    public Duration syncInterval() {
        return syncInterval;
    }

    @Override
    public void sync(long nowNanos) throws RedisUnavailableException {
        long idle = syncInterval.toNanos() * IDLE_SYNCS;
        try {
            mirrors.sync(redis, nowNanos, idle, nanoTime);
            limitMirrors.sync(redis, nowNanos, idle, nanoTime);
        } catch (RedisUnavailableException e) {
            seedLocal(nowNanos); // before the switch: no record may find a fresh local bucket meanwhile
            throw e;
        }
    }

    /** Local state starts from this instance's share of the mirrors': what Redis last said, less use. */
    private void seedLocal(long nowNanos) {
        int instances = local.instances();
        for (LocalTokenBuckets.Balance b : mirrors.balances(nowNanos)) {
            local.seed(b.key(), b.shared(), b.shared().share(instances), b.tokens() / instances, nowNanos);
        }
        for (BatchedLimits.Snapshot s : limitMirrors.snapshots(nowNanos)) {
            local.seed(s.key(), s.policy(), local.share(s.policy(), 0), s.state(), nowNanos);
        }
    }

    @Override
    public void handBack(long nowNanos) throws RedisUnavailableException {
        HandBack.capSharedBuckets(redis, local, mirrors, nowNanos);
        HandBack.capSharedLimits(redis, local, limitMirrors, nowNanos);
    }

    @Override
    public void flush(long nowNanos) throws RedisUnavailableException {
        mirrors.sync(redis, nowNanos, 0, nanoTime);
        limitMirrors.sync(redis, nowNanos, 0, nanoTime);
    }

    /** How many keys are mirrored right now (for tests). */
    int mirroredKeys() {
        return mirrors.size() + limitMirrors.size();
    }
}
