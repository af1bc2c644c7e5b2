package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.utils.Bytes;

/**
 * The batched mode's mirrors: each key is admitted from a local mirror of its shared state, every limit of it, and
 * every sync interval what the mirrors admitted is charged to Redis, to every limit of each key, in chunks of
 * pipelined round trips; each mirror then takes the shared state, which includes what other instances and services
 * counted meanwhile.
 *
 * <p>A record is admitted only if every limit of its mirror allows it, and then counted once, as {@link
 * LimitsMirror#unsynced}, which the sync charges to each limit (one script call for all of a key's limits, the key's
 * state updated together). A mirror never charges some limits and not others, so the all-or-nothing of the strict
 * mode holds for what reaches Redis, too.
 *
 * <p>Bounds, per limit, for N instances and a sync interval S (plus a round trip per {@link
 * RedisLimits#CHARGE_CHUNK} keys): a token bucket of burst B and rate r, between two syncs each instance may
 * spend what its mirror holds plus what refills meanwhile, so the instances together admit at most {@code (N - 1) x (B
 * + r x S)} more than the bucket allows; the excess is charged at the next sync (the shared balance may go negative),
 * so it is paid back and the long-run rate holds. A window: between two syncs each instance may admit what its mirror
 * has left, so together up to {@code (N - 1) x} that more than the window allows; at a window's start every mirror
 * starts again from an empty window (the windows' ends come from Redis's clock, as the last sync told them), so the
 * first sync interval of a window may admit up to {@code N x max}. The excess is charged at the next sync and counted
 * against the window it lands in, so the long-run rate holds. Units admitted at the very end of a window and charged
 * after Redis's window has moved on count in the next window instead (at most one sync interval's worth): a little
 * stricter, never looser.
 */
final class BatchedLimits implements HandBack.Mirrors {

    private final ConcurrentHashMap<Bytes, LimitsMirror> mirrors = new ConcurrentHashMap<>();

    /**
     * Takes {@code cost} from the mirror of {@code key} if it allows it.
     *
     * @param perKey where the caller keeps this key's mirror between its records (null for none): used while
     *               the sync has not forgotten it, replaced when it has
     */
    AdmissionDecision tryTake(byte[] key, AdmissionPolicy policy, double cost, long nowNanos, KeyAdmission perKey) {
        LimitsMirror kept = perKey == null ? null : perKey.mirror;
        if (kept != null) {
            AdmissionDecision decision = tryTake(kept, policy, cost, nowNanos);
            if (decision != null) {
                return decision;
            }
        }
        AdmissionDecision decision;
        do {
            LimitsMirror mirror = mirror(key, policy, nowNanos);
            if (perKey != null) {
                perKey.mirror = mirror;
            }
            decision = tryTake(mirror, policy, cost, nowNanos);
        } while (decision == null);
        return decision;
    }

    /** The mirror of {@code key}, created if it has none. */
    private LimitsMirror mirror(byte[] key, AdmissionPolicy policy, long nowNanos) {
        Bytes wrapped = Bytes.wrap(key);
        // get first: computeIfAbsent would allocate its capturing lambda on every record, not just a key's first
        LimitsMirror mirror = mirrors.get(wrapped);
        if (mirror == null) {
            mirror = mirrors.computeIfAbsent(wrapped, k -> new LimitsMirror(key, policy, nowNanos));
        }
        return mirror;
    }

    /**
     * Takes {@code cost} from {@code mirror} if it allows it; null if a sync forgot the mirror since the caller got it
     * (its key then has a new one, see {@link #mirror}).
     */
    private AdmissionDecision tryTake(LimitsMirror mirror, AdmissionPolicy policy, double cost, long nowNanos) {
        synchronized (mirror) {
            if (mirror.forgotten) {
                return null;
            }
            mirror.policy = policy;
            mirror.lastUsedNanos = nowNanos;
            AdmissionDecision decision = mirror.take(policy, cost, nowNanos);
            if (decision.allowed()) {
                mirror.unsynced += cost;
            }
            return decision;
        }
    }

    /**
     * Charges the unsynced consumption of every mirror that has some, and adopts the shared states. Mirrors unused
     * for {@code idleNanos} and with nothing to charge are forgotten. On failure the consumption stays pending, to be
     * charged by a later sync.
     *
     * <p>The shared states are taken in at {@code clock}'s time when Redis's answer arrived, not when the sync
     * started: a window's end, which Redis gives as the time left, then falls no earlier than Redis's own, however
     * long the round trip took, so a mirror never opens the next window ahead of Redis.
     *
     * @return how many keys were synced
     */
    int sync(RedisLimits redis, long nowNanos, long idleNanos, LongSupplier clock)
            throws RedisUnavailableException {
        List<LimitsMirror> touched = new ArrayList<>();
        List<RedisLimits.Charge> charges = new ArrayList<>();
        List<Double> amounts = new ArrayList<>();
        for (Map.Entry<Bytes, LimitsMirror> e : mirrors.entrySet()) {
            LimitsMirror mirror = e.getValue();
            synchronized (mirror) {
                if (mirror.unsynced > 0) {
                    charges.add(new RedisLimits.Charge(mirror.key, mirror.policy,
                            new double[] {mirror.unsynced}));
                    amounts.add(mirror.unsynced);
                    mirror.unsynced = 0;
                    touched.add(mirror);
                } else if (nowNanos - mirror.lastUsedNanos > idleNanos) {
                    mirror.forgotten = true; // under its lock: no take can slip in unnoticed
                    mirrors.remove(e.getKey(), mirror);
                }
            }
        }
        // In chunks, each a pipelined round trip under the timeout: one pipeline of every key touched (tens of
        // thousands, with many keys) would outlast the timeout of a perfectly healthy Redis and count as down.
        for (int from = 0; from < charges.size(); from += RedisLimits.CHARGE_CHUNK) {
            int to = Math.min(charges.size(), from + RedisLimits.CHARGE_CHUNK);
            RedisLimits.Charged charged;
            try {
                charged = redis.charge(charges.subList(from, to));
            } catch (RedisUnavailableException e) {
                keepPending(touched, amounts, from, touched.size()); // maybe charged: taken as not
                throw e;
            }
            long answeredNanos = clock.getAsLong();
            for (int i = from; i < to; i++) {
                LimitsMirror mirror = touched.get(i);
                if (charged.refused().get(i - from)) {
                    keepPending(touched, amounts, i, i + 1); // Redis refused its call: it did not run
                    continue;
                }
                synchronized (mirror) {
                    // What was admitted here while the charge was on its way is not in the shared state yet.
                    mirror.adopt(charged.states().get(i - from), answeredNanos);
                }
            }
            if (charged.failure() != null) {
                keepPending(touched, amounts, to, touched.size()); // the chunks after this one were not sent
                throw charged.failure();
            }
        }
        return touched.size();
    }

    /** The consumption of mirrors {@code from} to {@code to} (excluded) was not charged: it stays pending. */
    private static void keepPending(List<LimitsMirror> touched, List<Double> amounts, int from, int to) {
        for (int i = from; i < to; i++) {
            LimitsMirror mirror = touched.get(i);
            synchronized (mirror) {
                mirror.unsynced += amounts.get(i);
            }
        }
    }

    /** A mirror's state now, to seed the local fallback with. */
    record Snapshot(byte[] key, AdmissionPolicy policy, SharedState state) {
    }

    /** Every mirror's state now: the shared state as last synced, with what was admitted here since. */
    List<Snapshot> snapshots(long nowNanos) {
        List<Snapshot> snapshots = new ArrayList<>(mirrors.size());
        for (LimitsMirror mirror : mirrors.values()) {
            synchronized (mirror) {
                snapshots.add(new Snapshot(mirror.key, mirror.policy, mirror.states.snapshot(mirror.policy,
                        nowNanos)));
            }
        }
        return snapshots;
    }

    /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
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

    /**
     * Sets the mirror of {@code key}, if it has one, to the {@code shared} state just read from Redis (less what was
     * admitted here and not yet charged); null (the key's Redis state is unusable) changes nothing.
     */
    @Override
    public void adopt(byte[] key, SharedState shared, long nowNanos) {
        LimitsMirror mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null) {
            return;
        }
        synchronized (mirror) {
            mirror.adopt(shared, nowNanos);
        }
    }

    int size() {
        return mirrors.size();
    }
}
