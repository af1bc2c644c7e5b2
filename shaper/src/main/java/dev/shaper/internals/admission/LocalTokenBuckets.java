package dev.shaper.internals.admission;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * In-process token buckets, one per admission key, shared by all stream threads of this instance. Used on
 * their own when no Redis is configured, and as the fallback while Redis is down. A full bucket carries no
 * information, so {@link #evictFull} forgets those and memory stays proportional to recently limited keys.
 */
final class LocalTokenBuckets {

    private final ConcurrentHashMap<Bytes, Entry> buckets = new ConcurrentHashMap<>();

    private static final class Entry {
        final TokenBucket bucket;
        AdmissionRule rule;

        Entry(TokenBucket bucket, AdmissionRule rule) {
            this.bucket = bucket;
            this.rule = rule;
        }
    }

    AdmissionDecision tryTake(byte[] key, AdmissionRule rule, double cost, long nowNanos) {
        Entry entry = buckets.computeIfAbsent(Bytes.wrap(key), k -> new Entry(new TokenBucket(rule.burst(), nowNanos),
                rule));
        synchronized (entry) {
            entry.rule = rule;
            return entry.bucket.tryTake(rule, cost, nowNanos);
        }
    }

    /** Forgets full buckets; returns how many remain. */
    int evictFull(long nowNanos) {
        buckets.values().removeIf(entry -> {
            synchronized (entry) {
                return entry.bucket.isFull(entry.rule, nowNanos);
            }
        });
        return buckets.size();
    }

    int size() {
        return buckets.size();
    }
}
