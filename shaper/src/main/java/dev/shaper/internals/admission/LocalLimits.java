package dev.shaper.internals.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * {@link LocalTokenBuckets} for every other policy (several limits, or a window algorithm): one {@link LimitStates}
 * per admission key, shared by all stream threads of this instance, at this instance's share of the key's policy.
 * Used on their own when no Redis is configured, and as the fallback while Redis is down; unused states are
 * forgotten ({@link #evictUnused}), so memory stays proportional to recently limited keys.
 */
final class LocalLimits {

    private final ConcurrentHashMap<Bytes, Entry> states = new ConcurrentHashMap<>();

    private static final class Entry {
        final LimitStates states;
        AdmissionPolicy share;
        AdmissionPolicy shared;

        Entry(LimitStates states, AdmissionPolicy share, AdmissionPolicy shared) {
            this.states = states;
            this.share = share;
            this.shared = shared;
        }
    }

    /** A key's state as what each limit has left, with the policy of the shared state it stands in for. */
    record Balance(byte[] key, AdmissionPolicy shared, double[] left) {
    }

    /** Takes {@code cost} for {@code key} from every limit of {@code share}, if each allows it. */
    AdmissionDecision tryTake(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, double cost, long nowNanos) {
        Entry entry = entry(key, shared, share, nowNanos);
        synchronized (entry) {
            entry.share = share;
            entry.shared = shared;
            return entry.states.tryTake(share, cost, nowNanos);
        }
    }

    /**
     * Sets the state of {@code key} to {@code known} (Redis's state, or a mirror's) divided among {@code instances}.
     * As {@link LocalTokenBuckets#seed}: a key without a state gets one only if {@code known} is not unused and fewer
     * than {@link LocalTokenBuckets#MAX_SEEDED_KEYS} states exist.
     */
    void seed(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, SharedState known, int instances,
              long nowNanos) {
        Entry entry = states.get(Bytes.wrap(key));
        if (entry == null) {
            if (isUnused(shared, known) || states.size() >= LocalTokenBuckets.MAX_SEEDED_KEYS) {
                return;
            }
            entry = entry(key, shared, share, nowNanos);
        }
        synchronized (entry) {
            entry.share = share;
            entry.shared = shared;
            entry.states.adopt(share, known, Math.max(1, instances), 0, nowNanos);
        }
    }

    /** Whether {@code key} has a state (a key without one starts unused). */
    boolean has(byte[] key) {
        return states.containsKey(Bytes.wrap(key));
    }

    /**
     * Removes the state of {@code key} and returns what its first limit has left now, at its share, if that limit is
     * a token bucket; null otherwise (no state, or windows). For a key whose policy moved to one token bucket.
     */
    Double removeFirstBucket(byte[] key, long nowNanos) {
        Entry entry = states.remove(Bytes.wrap(key));
        if (entry == null) {
            return null;
        }
        synchronized (entry) {
            return entry.share.algorithm().isWindow() ? null : entry.states.left(entry.share, nowNanos)[0];
        }
    }

    /**
     * Gives {@code key} a state whose first limit, a token bucket, holds {@code tokens} (at the share), the others
     * full: the balance of the one bucket the key had before its policy moved to several limits.
     */
    void seedFirstBucket(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, double tokens, long nowNanos) {
        double[] left = new double[share.size()];
        for (int i = 0; i < left.length; i++) {
            left[i] = i == 0 ? Math.min(tokens, share.limit(0).burst()) : share.limit(i).burst();
        }
        Entry entry = entry(key, shared, share, nowNanos);
        synchronized (entry) {
            entry.states.adopt(share, new SharedState(true, left, new long[left.length], null, null, null), 1, 0,
                    nowNanos);
        }
    }

    /** True if {@code known} says nothing more than a fresh state would. */
    private static boolean isUnused(AdmissionPolicy shared, SharedState known) {
        for (int i = 0; i < known.size(); i++) {
            if (known.current() == null ? known.left()[i] < shared.limit(i).burst()
                    : known.current()[i] > 0 || known.previous()[i] > 0) {
                return false;
            }
        }
        return true;
    }

    /** The states that are not unused now: the keys whose balance says more than "unused". */
    List<Balance> notUnused(long nowNanos) {
        List<Balance> balances = new ArrayList<>();
        for (Map.Entry<Bytes, Entry> e : states.entrySet()) {
            Entry entry = e.getValue();
            synchronized (entry) {
                if (!entry.states.isUnused(entry.share, nowNanos)) {
                    balances.add(new Balance(e.getKey().get(), entry.shared, entry.states.left(entry.share, nowNanos)));
                }
            }
        }
        return balances;
    }

    private Entry entry(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, long nowNanos) {
        Bytes wrapped = Bytes.wrap(key);
        Entry entry = states.get(wrapped);
        if (entry == null) {
            entry = states.computeIfAbsent(wrapped, k -> new Entry(new LimitStates(share, nowNanos), share, shared));
        }
        return entry;
    }

    /** Forgets unused states; returns how many remain. */
    int evictUnused(long nowNanos) {
        states.values().removeIf(entry -> {
            synchronized (entry) {
                return entry.states.isUnused(entry.share, nowNanos);
            }
        });
        return states.size();
    }

    int size() {
        return states.size();
    }
}
