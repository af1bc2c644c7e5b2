package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.List;

/**
 * The batched mode: each key is admitted from a local mirror of its shared bucket, and every sync interval
 * the consumption of all touched keys is charged to Redis in one pipelined round trip; each mirror then
 * takes the shared balance, which includes what other instances and services consumed meanwhile.
 *
 * <p>Worst case: between two syncs each of N instances may spend what its mirror holds (at most the burst B)
 * plus what refills during the interval (rate r times S, the sync interval plus the time a sync takes: a
 * round trip per {@link RedisTokenBuckets#CHARGE_CHUNK} keys touched), so the instances together admit at most
 * {@code (N - 1) x (B + r x S)} tokens more than the bucket allows. The excess is charged at the next sync
 * (the shared balance may go negative), so it is paid back and the long-run rate holds.
 */
final class BatchedTokenBuckets extends BatchedMirrors<AdmissionRule, Double, RedisTokenBuckets.Charge, Mirror>
        implements HandBack.Mirrors {

    @Override
    Mirror newMirror(byte[] key, AdmissionRule rule, long nowNanos) {
        return new Mirror(key, rule, nowNanos);
    }

    @Override
    Mirror kept(KeyAdmission perKey) {
        return perKey.mirror;
    }

    @Override
    void keep(KeyAdmission perKey, Mirror mirror) {
        perKey.mirror = mirror;
    }

    @Override
    RedisTokenBuckets.Charge chargeOf(Mirror mirror) {
        return new RedisTokenBuckets.Charge(mirror.key, mirror.limits, mirror.unsynced);
    }

    /** The shared balances after the charges; NaN for a bucket whose key is unusable in Redis. */
    @Override
    List<Double> charge(RedisTokenBuckets redis, List<RedisTokenBuckets.Charge> charges)
            throws RedisUnavailableException {
        return redis.charge(charges);
    }

    /** Every mirror's balance now: the shared balance as last synced, less what was admitted here since. */
    List<LocalTokenBuckets.Balance> balances(long nowNanos) {
        return each(mirror -> new LocalTokenBuckets.Balance(mirror.key, mirror.limits,
                mirror.bucket.tokens(mirror.limits, nowNanos)));
    }

    /**
     * Sets the mirror of {@code key}, if it has one, to the shared {@code balance} just read from Redis (less what
     * was admitted here and not yet charged). NaN (the key is unusable in Redis) changes nothing.
     */
    @Override
    public void adopt(byte[] key, double balance, long nowNanos) {
        adoptShared(key, balance, nowNanos);
    }
}
