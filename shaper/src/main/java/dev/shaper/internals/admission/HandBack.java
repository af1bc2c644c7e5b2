package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;

/**
 * What admission writes back to Redis before it returns there from local state: each limit of each key is capped in
 * Redis at what the local state says is left of it (this instance's share times the live instances), a token
 * bucket's balance lowered, a window's count raised, never the other way, because Redis's state refilled while
 * nobody could charge it, or restarted empty. Only keys whose local state is not unused are sent: an unused one would
 * change nothing.
 */
final class HandBack {

    /** Local mirrors of the shared state, which take in the states the hand-back leaves in Redis. */
    interface Mirrors {
        /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
        double pending(byte[] key);

        /** Sets the mirror of {@code key}, if it has one, to the shared {@code state} just read (null: none). */
        void adopt(byte[] key, SharedState state, long nowNanos);
    }

    /** For a backend without mirrors. */
    static final Mirrors NO_MIRRORS = new Mirrors() {
        @Override
        public double pending(byte[] key) {
            return 0;
        }

        @Override
        public void adopt(byte[] key, SharedState state, long nowNanos) {
        }
    };

    private HandBack() {
    }

    /** Caps the shared state of every key whose local state is not unused, in chunks of round trips. */
    static void capShared(RedisLimits redis, LocalBackend local, Mirrors mirrors, long nowNanos)
            throws RedisUnavailableException {
        int instances = local.instances();
        List<LocalLimits.Balance> balances = local.notUnused(nowNanos);
        for (int from = 0; from < balances.size(); from += RedisLimits.CHARGE_CHUNK) {
            List<LocalLimits.Balance> chunk = balances.subList(from,
                    Math.min(balances.size(), from + RedisLimits.CHARGE_CHUNK));
            List<RedisLimits.Charge> ceilings = new ArrayList<>(chunk.size());
            for (LocalLimits.Balance b : chunk) {
                // The local state started from the mirror's, which already counts what the next sync will charge:
                // add that back, or it would be taken twice. A debt cannot be a ceiling: 0 at least.
                double pending = mirrors.pending(b.key());
                double[] ceiling = new double[b.left().length];
                for (int i = 0; i < ceiling.length; i++) {
                    ceiling[i] = Math.max(0, b.left()[i] * instances + pending);
                }
                ceilings.add(new RedisLimits.Charge(b.key(), b.shared(), ceiling));
            }
            List<SharedState> after = redis.cap(ceilings);
            for (int i = 0; i < chunk.size(); i++) {
                mirrors.adopt(chunk.get(i).key(), after.get(i), nowNanos);
            }
        }
    }
}
