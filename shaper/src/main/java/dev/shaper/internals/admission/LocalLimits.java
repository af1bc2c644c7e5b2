package dev.shaper.internals.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * In-process admission state: one {@link LimitStates} per admission key, shared by all stream threads of this
 * instance, at this instance's share of the key's policy. Used on their own when no Redis is configured, and as the
 * fallback while Redis is down; unused states are forgotten ({@link #evictUnused}), so memory stays proportional to
 * recently limited keys.
 *
 * <p>Each state runs at this instance's share of the key's policy and remembers the shared policy too, so that what
 * it has left can be handed back to the shared state when Redis is back ({@link #notUnused}).
 */
final class LocalLimits {

    /** The most states {@link #seed} fills the map to with keys it did not hold: bounds the heap a seed may take. */
    static final int MAX_SEEDED_KEYS = 100_000;

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
     * A key without a state gets one only if {@code known} is not unused and fewer than {@link #MAX_SEEDED_KEYS}
     * states exist: called for every decision on Redis, it must not grow the map with every key seen. A key left
     * out starts unused if Redis fails.
     */
    void seed(byte[] key, AdmissionPolicy shared, AdmissionPolicy share, SharedState known, int instances,
              long nowNanos) {
        Entry entry = states.get(Bytes.wrap(key));
        if (entry == null) {
            if (isUnused(shared, known) || states.size() >= MAX_SEEDED_KEYS) {
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

    /** True if {@code known} says nothing more than a fresh state would: every limit has all of it left. */
    private static boolean isUnused(AdmissionPolicy shared, SharedState known) {
        if (known.size() != shared.size()) {
            return false;
        }
        for (int i = 0; i < known.size(); i++) {
            if (known.left()[i] < shared.limit(i).burst()) {
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
