package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.List;

/**
 * The batched mode for policies other than one token bucket ({@link BatchedTokenBuckets} keeps that one): each key
 * is admitted from a local mirror of its shared state, every limit of it, and every sync interval what the mirrors
 * admitted is charged to Redis, to every limit of each key, in pipelined round trips; each mirror then takes the
 * shared state, which includes what other instances and services counted meanwhile.
 *
 * <p>Why the same design as the token bucket's: a record is admitted only if every limit of its mirror allows it,
 * and then counted once, as {@link LimitsMirror#unsynced}, which the sync charges to each limit (one script call
 * for all of a key's limits, the key's counters updated together). A mirror never charges some limits and not
 * others, so the all-or-nothing of the strict mode holds for what reaches Redis, too.
 *
 * <p>Bounds, per limit, for N instances and a sync interval S (plus a round trip per {@link
 * RedisTokenBuckets#CHARGE_CHUNK} keys): a token bucket as in {@link BatchedTokenBuckets}, {@code (N - 1) x (B + r x
 * S)}. A window: between two syncs each instance may admit what its mirror has left, so together up to {@code (N -
 * 1) x} that more than the window allows; at a window's start every mirror starts again from an empty window (the
 * windows' ends come from Redis's clock, as the last sync told them), so the first sync interval of a window may admit
 * up to {@code N x max}. The excess is charged at the next sync and counted against the window it lands in, so the
 * long-run rate holds. Units admitted at the very end of a window and charged after Redis's window has moved on
 * count in the next window instead (at most one sync interval's worth): a little stricter, never looser.
 */
final class BatchedLimits
        extends BatchedMirrors<AdmissionPolicy, SharedState, RedisTokenBuckets.LimitsCharge, LimitsMirror>
        implements HandBack.LimitMirrors {

    @Override
    LimitsMirror newMirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        return new LimitsMirror(key, policy, nowNanos);
    }

    @Override
    LimitsMirror kept(KeyAdmission perKey) {
        return perKey.limitsMirror;
    }

    @Override
    void keep(KeyAdmission perKey, LimitsMirror mirror) {
        perKey.limitsMirror = mirror;
    }

    /** The same amount for every limit of the key. */
    @Override
    RedisTokenBuckets.LimitsCharge chargeOf(LimitsMirror mirror) {
        return new RedisTokenBuckets.LimitsCharge(mirror.key, mirror.limits, new double[] {mirror.unsynced});
    }

    /** The shared states after the charges; null for a key whose Redis state is unusable. */
    @Override
    List<SharedState> charge(RedisTokenBuckets redis, List<RedisTokenBuckets.LimitsCharge> charges)
            throws RedisUnavailableException {
        return redis.chargeLimits(charges);
    }

    /** A mirror's state now, to seed the local fallback with. */
    record Snapshot(byte[] key, AdmissionPolicy policy, SharedState state) {
    }

    /** Every mirror's state now: the shared state as last synced, with what was admitted here since. */
    List<Snapshot> snapshots(long nowNanos) {
        return each(mirror -> new Snapshot(mirror.key, mirror.limits, mirror.states.snapshot(mirror.limits, nowNanos)));
    }

    @Override
    public void adopt(byte[] key, SharedState state, long nowNanos) {
        adoptShared(key, state, nowNanos);
    }
}
