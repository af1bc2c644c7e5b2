package dev.shaper.internals.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * In-process token buckets, one per admission key, shared by all stream threads of this instance. Used on
 * their own when no Redis is configured, and as the fallback while Redis is down. A full bucket carries no
 * information, so {@link #evictFull} forgets those and memory stays proportional to recently limited keys.
 *
 * <p>Each bucket runs at this instance's share of the key's rule and remembers the shared rule too, so that
 * its balance can be handed back to the shared bucket when Redis is back ({@link #notFull}).
 */
final class LocalTokenBuckets {

    /** The most buckets {@link #seed} fills the map to with keys it did not hold: about 15 MB of heap. */
    static final int MAX_SEEDED_KEYS = 100_000;

    private final ConcurrentHashMap<Bytes, Entry> buckets = new ConcurrentHashMap<>();

    private static final class Entry {
        final TokenBucket bucket;
        AdmissionRule share;
        AdmissionRule shared;

        Entry(TokenBucket bucket, AdmissionRule share, AdmissionRule shared) {
            this.bucket = bucket;
            this.share = share;
            this.shared = shared;
        }
    }

    /** A bucket's balance, with the rule of the shared bucket it stands in for. */
    record Balance(byte[] key, AdmissionRule shared, double tokens) {
    }

    /**
     * Takes {@code cost} tokens for {@code key} from its bucket, which runs at {@code share}; {@code shared} is
     * the rule of the key's shared bucket. A key without a bucket gets a full one.
     */
    AdmissionDecision tryTake(byte[] key, AdmissionRule shared, AdmissionRule share, double cost, long nowNanos) {
        Entry entry = entry(key, shared, share, nowNanos);
        synchronized (entry) {
            entry.share = share;
            entry.shared = shared;
            return entry.bucket.tryTake(share, cost, nowNanos);
        }
    }

    /**
     * Sets the balance of {@code key}'s bucket, e.g. to its share of the balance last known from Redis. A key
     * without a bucket gets one only if the balance is below a full bucket (a full one says nothing) and fewer
     * than {@link #MAX_SEEDED_KEYS} buckets exist: called for every decision on Redis, it must not grow the map
     * with every key seen. A key left out starts from a full share if Redis fails, as before the carry-over.
     */
    void seed(byte[] key, AdmissionRule shared, AdmissionRule share, double tokens, long nowNanos) {
        if (!has(key) && (tokens >= share.burst() || buckets.size() >= MAX_SEEDED_KEYS)) {
            return;
        }
        carry(key, shared, share, tokens, nowNanos);
    }

    /** Whether {@code key} has a bucket (a key without one starts full). */
    boolean has(byte[] key) {
        return buckets.containsKey(Bytes.wrap(key));
    }

    /**
     * Removes the bucket of {@code key} and returns its balance now, at its share; null if the key has none. For a key
     * whose policy moved to several limits: its first limit takes the balance over (see {@link LocalBackend}).
     */
    Double remove(byte[] key, long nowNanos) {
        Entry entry = buckets.remove(Bytes.wrap(key));
        if (entry == null) {
            return null;
        }
        synchronized (entry) {
            return entry.bucket.tokens(entry.share, nowNanos);
        }
    }

    /**
     * Gives {@code key} a bucket holding {@code tokens} (at {@code share}), whatever the number of buckets: the balance
     * a key carries over from its state under several limits (see {@link LocalBackend}), not a balance from Redis.
     */
    void carry(byte[] key, AdmissionRule shared, AdmissionRule share, double tokens, long nowNanos) {
        Entry entry = entry(key, shared, share, nowNanos);
        synchronized (entry) {
            entry.share = share;
            entry.shared = shared;
            entry.bucket.reset(Math.min(tokens, share.burst()), nowNanos);
        }
    }

    /** The buckets that are not full now: the keys whose balance says more than "unused". */
    List<Balance> notFull(long nowNanos) {
        List<Balance> balances = new ArrayList<>();
        for (Map.Entry<Bytes, Entry> e : buckets.entrySet()) {
            Entry entry = e.getValue();
            synchronized (entry) {
                if (!entry.bucket.isFull(entry.share, nowNanos)) {
                    balances.add(new Balance(e.getKey().get(), entry.shared, entry.bucket.tokens(entry.share,
                            nowNanos)));
                }
            }
        }
        return balances;
    }

    private Entry entry(byte[] key, AdmissionRule shared, AdmissionRule share, long nowNanos) {
        return buckets.computeIfAbsent(Bytes.wrap(key), k -> new Entry(new TokenBucket(share.burst(), nowNanos), share,
                shared));
    }

    /** Forgets full buckets; returns how many remain. */
    int evictFull(long nowNanos) {
        buckets.values().removeIf(entry -> {
            synchronized (entry) {
                return entry.bucket.isFull(entry.share, nowNanos);
            }
        });
        return buckets.size();
    }

    int size() {
        return buckets.size();
    }
}
