package dev.shaper.internals.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

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
final class BatchedLimits implements HandBack.LimitMirrors {

    private final ConcurrentHashMap<Bytes, LimitsMirror> mirrors = new ConcurrentHashMap<>();

    /**
     * Takes {@code cost} from every limit of the mirror of {@code key} if each allows it.
     *
     * @param perKey where the caller keeps this key's mirror between its records (null for none)
     */
    AdmissionDecision tryTake(byte[] key, AdmissionPolicy policy, double cost, long nowNanos, KeyAdmission perKey) {
        if (perKey != null && perKey.limitsMirror != null) {
            AdmissionDecision decision = tryTake(perKey.limitsMirror, policy, cost, nowNanos);
            if (decision != null) {
                return decision;
            }
        }
        AdmissionDecision decision;
        do {
            LimitsMirror mirror = mirror(key, policy, nowNanos);
            if (perKey != null) {
                perKey.limitsMirror = mirror;
            }
            decision = tryTake(mirror, policy, cost, nowNanos);
        } while (decision == null);
        return decision;
    }

    private LimitsMirror mirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        Bytes wrapped = Bytes.wrap(key);
        LimitsMirror mirror = mirrors.get(wrapped);
        if (mirror == null) {
            mirror = mirrors.computeIfAbsent(wrapped, k -> new LimitsMirror(key, policy, nowNanos));
        }
        return mirror;
    }

    /** As {@link BatchedTokenBuckets}: null if a sync forgot the mirror since the caller got it. */
    private static AdmissionDecision tryTake(LimitsMirror mirror, AdmissionPolicy policy, double cost, long nowNanos) {
        synchronized (mirror) {
            if (mirror.forgotten) {
                return null;
            }
            mirror.policy = policy;
            mirror.lastUsedNanos = nowNanos;
            AdmissionDecision decision = mirror.states.tryTake(policy, cost, nowNanos);
            if (decision.allowed()) {
                mirror.unsynced += cost;
            }
            return decision;
        }
    }

    /**
     * Charges the unsynced consumption of every mirror that has some, and adopts the shared states. Mirrors unused
     * for {@code idleNanos} and with nothing to charge are forgotten. On failure the consumption stays pending.
     *
     * @return how many keys were synced
     */
    int sync(RedisTokenBuckets redis, long nowNanos, long idleNanos) throws RedisUnavailableException {
        List<LimitsMirror> touched = new ArrayList<>();
        List<RedisTokenBuckets.LimitsCharge> charges = new ArrayList<>();
        for (Map.Entry<Bytes, LimitsMirror> e : mirrors.entrySet()) {
            LimitsMirror mirror = e.getValue();
            synchronized (mirror) {
                if (mirror.unsynced > 0) {
                    charges.add(new RedisTokenBuckets.LimitsCharge(mirror.key, mirror.policy,
                            new double[] {mirror.unsynced}));
                    mirror.unsynced = 0;
                    touched.add(mirror);
                } else if (nowNanos - mirror.lastUsedNanos > idleNanos) {
                    mirror.forgotten = true; // under its lock: no take can slip in unnoticed
                    mirrors.remove(e.getKey(), mirror);
                }
            }
        }
        for (int from = 0; from < charges.size(); from += RedisTokenBuckets.CHARGE_CHUNK) {
            int to = Math.min(charges.size(), from + RedisTokenBuckets.CHARGE_CHUNK);
            List<SharedState> states;
            try {
                states = redis.chargeLimits(charges.subList(from, to));
            } catch (RedisUnavailableException e) {
                for (int i = from; i < touched.size(); i++) {
                    LimitsMirror mirror = touched.get(i);
                    synchronized (mirror) {
                        mirror.unsynced += charges.get(i).amounts()[0];
                    }
                }
                throw e;
            }
            for (int i = from; i < to; i++) {
                LimitsMirror mirror = touched.get(i);
                SharedState state = states.get(i - from);
                if (state == null) {
                    continue; // the key's Redis state is unusable: it stays on its local mirror
                }
                synchronized (mirror) {
                    // What was admitted here while the charge was on its way is not in the shared state yet.
                    mirror.states.adopt(mirror.policy, state, 1, mirror.unsynced, nowNanos);
                }
            }
        }
        return touched.size();
    }

    /** A mirror's state now, to seed the local fallback with. */
    record Snapshot(byte[] key, AdmissionPolicy policy, SharedState state) {
    }

    /** Every mirror's state now: the shared state as last synced, with what was admitted here since. */
    List<Snapshot> snapshots(long nowNanos) {
        List<Snapshot> snapshots = new ArrayList<>(mirrors.size());
        for (LimitsMirror mirror : mirrors.values()) {
            synchronized (mirror) {
                snapshots.add(new Snapshot(mirror.key, mirror.policy, mirror.states.snapshot(mirror.policy, nowNanos)));
            }
        }
        return snapshots;
    }

    @Override
    public double pending(byte[] key) {
        LimitsMirror mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null) {
            return 0;
        }
        synchronized (mirror) {
            return mirror.unsynced;
        }
    }

    @Override
    public void adopt(byte[] key, SharedState state, long nowNanos) {
        LimitsMirror mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null || state == null) {
            return;
        }
        synchronized (mirror) {
            mirror.states.adopt(mirror.policy, state, 1, mirror.unsynced, nowNanos);
        }
    }

    int size() {
        return mirrors.size();
    }
}
