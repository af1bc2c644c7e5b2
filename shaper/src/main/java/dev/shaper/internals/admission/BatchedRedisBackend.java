package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The batched mode: each key is admitted from a local mirror of its shared state ({@link BatchedLimits}), and every
 * sync interval what the mirrors admitted is charged to Redis, whose state they then take in.
 */
final class BatchedRedisBackend implements RedisBackend {

    /** A mirror unused for this many sync intervals, with nothing to charge, is forgotten. */
    private static final int IDLE_SYNCS = 100;

    private final BatchedLimits mirrors = new BatchedLimits();
    private final RedisLimits redis;
    private final LocalBackend local;
    private final Duration syncInterval;
    /** The mirrors' clock, read again when Redis's answer arrives (see {@link BatchedLimits#sync}). */
    private final LongSupplier nanoTime;

    BatchedRedisBackend(RedisLimits redis, LocalBackend local, Duration syncInterval, LongSupplier nanoTime) {
        this.redis = redis;
        this.local = local;
        this.syncInterval = syncInterval;
        this.nanoTime = nanoTime;
    }

    @Override
    public AdmissionDecision admit(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyAdmission perKey,
                                   long nowNanos) {
        return mirrors.tryTake(admissionKey, policy, cost, nowNanos, perKey);
    }

    @Override
    public Duration syncInterval() {
        return syncInterval;
    }

    @Override
    public void sync(long nowNanos) throws RedisUnavailableException {
        try {
            mirrors.sync(redis, nowNanos, syncInterval.toNanos() * IDLE_SYNCS, nanoTime);
        } catch (RedisUnavailableException e) {
            seedLocal(nowNanos); // before the switch: no record may find a fresh local state meanwhile
            throw e;
        }
    }

    /** Local state starts from this instance's share of the mirrors': what Redis last said, less use. */
    private void seedLocal(long nowNanos) {
        for (BatchedLimits.Snapshot s : mirrors.snapshots(nowNanos)) {
            local.seed(s.key(), s.policy(), local.share(s.policy(), 0), s.state(), nowNanos);
        }
    }

    @Override
    public void handBack(long nowNanos) throws RedisUnavailableException {
        HandBack.capShared(redis, local, mirrors, nowNanos);
    }

    @Override
    public void flush(long nowNanos) throws RedisUnavailableException {
        mirrors.sync(redis, nowNanos, 0, nanoTime);
    }

    /** How many keys are mirrored right now (for tests). */
    int mirroredKeys() {
        return mirrors.size();
    }
}
