package dev.shaper.internals.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

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
final class BatchedTokenBuckets implements HandBack.Mirrors {

    private final ConcurrentHashMap<Bytes, Mirror> mirrors = new ConcurrentHashMap<>();

    /**
     * Takes {@code cost} tokens from the mirror of {@code key} if it holds enough.
     *
     * @param perKey where the caller keeps this key's mirror between its records (null for none): used while
     *               the sync has not forgotten it, replaced when it has
     */
    AdmissionDecision tryTake(byte[] key, AdmissionRule rule, double cost, long nowNanos, KeyAdmission perKey) {
        if (perKey != null && perKey.mirror != null) {
            AdmissionDecision decision = tryTake(perKey.mirror, rule, cost, nowNanos);
            if (decision != null) {
                return decision;
            }
        }
        AdmissionDecision decision;
        do {
            Mirror mirror = mirror(key, rule, nowNanos);
            if (perKey != null) {
                perKey.mirror = mirror;
            }
            decision = tryTake(mirror, rule, cost, nowNanos);
        } while (decision == null);
        return decision;
    }

    /** The mirror of {@code key}, created (full) if it has none. */
    private Mirror mirror(byte[] key, AdmissionRule rule, long nowNanos) {
        Bytes wrapped = Bytes.wrap(key);
        // get first: computeIfAbsent would allocate its capturing lambda on every record, not just a key's first
        Mirror mirror = mirrors.get(wrapped);
        if (mirror == null) {
            mirror = mirrors.computeIfAbsent(wrapped, k -> new Mirror(key, rule, nowNanos));
        }
        return mirror;
    }

    /**
     * Takes {@code cost} tokens from {@code mirror} if it holds enough; null if a sync forgot the mirror since the
     * caller got it (its key then has a new one, see {@link #mirror}).
     */
    private static AdmissionDecision tryTake(Mirror mirror, AdmissionRule rule, double cost, long nowNanos) {
        synchronized (mirror) {
            if (mirror.forgotten) {
                return null;
            }
            mirror.rule = rule;
            mirror.lastUsedNanos = nowNanos;
            AdmissionDecision decision = mirror.bucket.tryTake(rule, cost, nowNanos);
            if (decision.allowed()) {
                mirror.unsynced += cost;
            }
            return decision;
        }
    }

    /**
     * Charges the unsynced consumption of every mirror that has some, and adopts the shared balances. Mirrors
     * unused for {@code idleNanos} and with nothing to charge are forgotten. On failure the consumption stays
     * pending, to be charged by a later sync.
     *
     * @return how many keys were synced
     */
    int sync(RedisTokenBuckets redis, long nowNanos, long idleNanos) throws RedisUnavailableException {
        List<Mirror> touched = new ArrayList<>();
        List<RedisTokenBuckets.Charge> charges = new ArrayList<>();
        for (Map.Entry<Bytes, Mirror> e : mirrors.entrySet()) {
            Mirror mirror = e.getValue();
            synchronized (mirror) {
                if (mirror.unsynced > 0) {
                    charges.add(new RedisTokenBuckets.Charge(mirror.key, mirror.rule, mirror.unsynced));
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
            List<Double> balances;
            try {
                balances = redis.charge(charges.subList(from, to));
            } catch (RedisUnavailableException e) {
                // This chunk and the ones after it were not charged: their consumption stays pending.
                for (int i = from; i < touched.size(); i++) {
                    Mirror mirror = touched.get(i);
                    synchronized (mirror) {
                        mirror.unsynced += charges.get(i).consumed();
                    }
                }
                throw e;
            }
            for (int i = from; i < to; i++) {
                Mirror mirror = touched.get(i);
                double balance = balances.get(i - from);
                synchronized (mirror) {
                    if (Double.isNaN(balance)) {
                        continue; // the bucket's key is unusable in Redis: this key stays on its local mirror
                    }
                    // What was admitted here while the charge was on its way is not in the shared balance yet.
                    mirror.bucket.reset(balance - mirror.unsynced, nowNanos);
                }
            }
        }
        return touched.size();
    }

    /** Every mirror's balance now: the shared balance as last synced, less what was admitted here since. */
    List<LocalTokenBuckets.Balance> balances(long nowNanos) {
        List<LocalTokenBuckets.Balance> balances = new ArrayList<>(mirrors.size());
        for (Mirror mirror : mirrors.values()) {
            synchronized (mirror) {
                balances.add(new LocalTokenBuckets.Balance(mirror.key, mirror.rule,
                        mirror.bucket.tokens(mirror.rule, nowNanos)));
            }
        }
        return balances;
    }

    /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
    @Override
    public double pending(byte[] key) {
        Mirror mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null) {
            return 0;
        }
        synchronized (mirror) {
            return mirror.unsynced;
        }
    }

    /**
     * Sets the mirror of {@code key}, if it has one, to the shared {@code balance} just read from Redis (less what
     * was admitted here and not yet charged). NaN (the key is unusable in Redis) changes nothing.
     */
    @Override
    public void adopt(byte[] key, double balance, long nowNanos) {
        Mirror mirror = mirrors.get(Bytes.wrap(key));
        if (mirror == null || Double.isNaN(balance)) {
            return;
        }
        synchronized (mirror) {
            mirror.bucket.reset(balance - mirror.unsynced, nowNanos);
        }
    }

    int size() {
        return mirrors.size();
    }
}
