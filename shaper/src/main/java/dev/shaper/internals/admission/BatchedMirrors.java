package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.utils.Bytes;

/**
 * The batched mode's local mirrors of one kind (see {@link BatchedTokenBuckets} and {@link BatchedLimits}): a key
 * is admitted from its mirror, and every sync what the mirrors admitted is charged to Redis, in chunks of pipelined
 * round trips, and each mirror takes in the shared state Redis answers. A kind says how its mirrors are made, kept
 * beside a key's state and charged.
 *
 * @param <L> what a key is admitted under
 * @param <S> Redis's answer to a charge of one key
 * @param <C> a charge of one key, as {@link RedisTokenBuckets} takes it
 * @param <M> the mirror of one key
 */
abstract class BatchedMirrors<L, S, C, M extends KeyMirror<L, S>> {

    private final ConcurrentHashMap<Bytes, M> mirrors = new ConcurrentHashMap<>();

    /** A new mirror of {@code key}: full, or with empty windows. */
    abstract M newMirror(byte[] key, L limits, long nowNanos);

    /** The mirror {@code perKey} keeps (null for none). */
    abstract M kept(KeyAdmission perKey);

    /** Keeps {@code mirror} in {@code perKey}. */
    abstract void keep(KeyAdmission perKey, M mirror);

    /** The charge of what {@code mirror} admitted and did not charge yet; called under its lock. */
    abstract C chargeOf(M mirror);

    /** Charges {@code charges} in one pipelined round trip, and answers each key's shared state. */
    abstract List<S> charge(RedisTokenBuckets redis, List<C> charges) throws RedisUnavailableException;

    /**
     * Takes {@code cost} from the mirror of {@code key} if it allows it.
     *
     * @param perKey where the caller keeps this key's mirror between its records (null for none): used while
     *               the sync has not forgotten it, replaced when it has
     */
    final AdmissionDecision tryTake(byte[] key, L limits, double cost, long nowNanos, KeyAdmission perKey) {
        M kept = perKey == null ? null : kept(perKey);
        if (kept != null) {
            AdmissionDecision decision = tryTake(kept, limits, cost, nowNanos);
            if (decision != null) {
                return decision;
            }
        }
        AdmissionDecision decision;
        do {
            M mirror = mirror(key, limits, nowNanos);
            if (perKey != null) {
                keep(perKey, mirror);
            }
            decision = tryTake(mirror, limits, cost, nowNanos);
        } while (decision == null);
        return decision;
    }

    /** The mirror of {@code key}, created if it has none. */
    private M mirror(byte[] key, L limits, long nowNanos) {
        Bytes wrapped = Bytes.wrap(key);
        // get first: computeIfAbsent would allocate its capturing lambda on every record, not just a key's first
        M mirror = mirrors.get(wrapped);
        if (mirror == null) {
            mirror = mirrors.computeIfAbsent(wrapped, k -> newMirror(key, limits, nowNanos));
        }
        return mirror;
    }

    /**
     * Takes {@code cost} from {@code mirror} if it allows it; null if a sync forgot the mirror since the caller got it
     * (its key then has a new one, see {@link #mirror}).
     */
    private AdmissionDecision tryTake(M mirror, L limits, double cost, long nowNanos) {
        synchronized (mirror) {
            if (mirror.forgotten) {
                return null;
            }
            mirror.limits = limits;
            mirror.lastUsedNanos = nowNanos;
            AdmissionDecision decision = mirror.take(limits, cost, nowNanos);
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
    final int sync(RedisTokenBuckets redis, long nowNanos, long idleNanos, LongSupplier clock)
            throws RedisUnavailableException {
        List<M> touched = new ArrayList<>();
        List<C> charges = new ArrayList<>();
        List<Double> amounts = new ArrayList<>();
        for (Map.Entry<Bytes, M> e : mirrors.entrySet()) {
            M mirror = e.getValue();
            synchronized (mirror) {
                if (mirror.unsynced > 0) {
                    charges.add(chargeOf(mirror));
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
        for (int from = 0; from < charges.size(); from += RedisTokenBuckets.CHARGE_CHUNK) {
            int to = Math.min(charges.size(), from + RedisTokenBuckets.CHARGE_CHUNK);
            List<S> states;
            try {
                states = charge(redis, charges.subList(from, to));
            } catch (RedisUnavailableException e) {
                // This chunk and the ones after it were not charged: their consumption stays pending.
                for (int i = from; i < touched.size(); i++) {
                    M mirror = touched.get(i);
                    synchronized (mirror) {
                        mirror.unsynced += amounts.get(i);
                    }
                }
                throw e;
            }
            long answeredNanos = clock.getAsLong();
            for (int i = from; i < to; i++) {
                M mirror = touched.get(i);
                synchronized (mirror) {
                    // What was admitted here while the charge was on its way is not in the shared state yet.
                    mirror.adopt(states.get(i - from), answeredNanos);
                }
            }
        }
        return touched.size();
    }

    /** {@code view} of every mirror now, each taken under the mirror's lock. */
    final <T> List<T> each(Function<M, T> view) {
        List<T> views = new ArrayList<>(mirrors.size());
        for (M mirror : mirrors.values()) {
            synchronized (mirror) {
                views.add(view.apply(mirror));
            }
        }
        return views;
    }

    /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
    public final double pending(byte[] key) {
        M mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null) {
            return 0;
        }
        synchronized (mirror) {
            return mirror.unsynced;
        }
    }

    /**
     * Sets the mirror of {@code key}, if it has one, to the {@code shared} state just read from Redis (less what was
     * admitted here and not yet charged).
     */
    final void adoptShared(byte[] key, S shared, long nowNanos) {
        M mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null) {
            return;
        }
        synchronized (mirror) {
            mirror.adopt(shared, nowNanos);
        }
    }

    final int size() {
        return mirrors.size();
    }
}
