package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;

/**
 * What admission writes back to Redis before it returns there from local buckets: each shared bucket is lowered
 * to at most what the local buckets say is left of it (this instance's balance times the live instances), never
 * raised, because Redis's buckets refilled while nobody could charge them, or restarted full. Only keys whose
 * local bucket is not full are sent: a full one would change nothing.
 */
final class HandBack {

    /** Local mirrors of the shared buckets, which take in the balances the hand-back leaves in Redis. */
    interface Mirrors {
        /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
        double pending(byte[] key);

        /** Sets the mirror of {@code key}, if it has one, to the shared {@code balance} just read from Redis. */
        void adopt(byte[] key, double balance, long nowNanos);
    }

    /** For a backend without mirrors. */
    static final Mirrors NO_MIRRORS = new Mirrors() {
        @Override
        public double pending(byte[] key) {
            return 0;
        }

        @Override
        public void adopt(byte[] key, double balance, long nowNanos) {
        }
    };

    /** {@link Mirrors} for policies other than one token bucket. */
    interface LimitMirrors {
        /** What was admitted from the mirror of {@code key} and not yet charged to Redis (0 without a mirror). */
        double pending(byte[] key);

        /** Sets the mirror of {@code key}, if it has one, to the shared {@code state} just read (null: none). */
        void adopt(byte[] key, SharedState state, long nowNanos);
    }

    /** For a backend without mirrors. */
    static final LimitMirrors NO_LIMIT_MIRRORS = new LimitMirrors() {
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

    /**
     * {@link #capSharedBuckets} for the other policies: each limit of each key whose local state is not unused is
     * capped at what the local state says is left of it (times the live instances, plus the mirror's pending
     * charge): a token bucket's balance lowered, a window's count raised, never the other way.
     */
    static void capSharedLimits(RedisTokenBuckets redis, LocalBackend local, LimitMirrors mirrors, long nowNanos)
            throws RedisUnavailableException {
        int instances = local.instances();
        List<LocalLimits.Balance> balances = local.limitsNotUnused(nowNanos);
        for (int from = 0; from < balances.size(); from += RedisTokenBuckets.CHARGE_CHUNK) {
            List<LocalLimits.Balance> chunk = balances.subList(from,
                    Math.min(balances.size(), from + RedisTokenBuckets.CHARGE_CHUNK));
            List<RedisTokenBuckets.LimitsCharge> ceilings = new ArrayList<>(chunk.size());
            for (LocalLimits.Balance b : chunk) {
                double pending = mirrors.pending(b.key());
                double[] ceiling = new double[b.left().length];
                for (int i = 0; i < ceiling.length; i++) {
                    ceiling[i] = Math.max(0, b.left()[i] * instances + pending);
                }
                ceilings.add(new RedisTokenBuckets.LimitsCharge(b.key(), b.shared(), ceiling));
            }
            List<SharedState> after = redis.capLimits(ceilings);
            for (int i = 0; i < chunk.size(); i++) {
                mirrors.adopt(chunk.get(i).key(), after.get(i), nowNanos);
            }
        }
    }

    /** Caps the shared bucket of every key whose local bucket is not full, in chunks of round trips. */
    static void capSharedBuckets(RedisTokenBuckets redis, LocalBackend local, Mirrors mirrors, long nowNanos)
            throws RedisUnavailableException {
        int instances = local.instances();
        List<LocalTokenBuckets.Balance> balances = local.notFull(nowNanos);
        for (int from = 0; from < balances.size(); from += RedisTokenBuckets.CHARGE_CHUNK) {
            List<LocalTokenBuckets.Balance> chunk = balances.subList(from,
                    Math.min(balances.size(), from + RedisTokenBuckets.CHARGE_CHUNK));
            List<RedisTokenBuckets.Charge> ceilings = new ArrayList<>(chunk.size());
            for (LocalTokenBuckets.Balance b : chunk) {
                // The local balance started from the mirror's, which already counts what the next sync will
                // charge: add that back, or it would be taken twice. A debt cannot be a ceiling: 0 at least.
                ceilings.add(new RedisTokenBuckets.Charge(b.key(), b.shared(),
                        Math.max(0, b.tokens() * instances + mirrors.pending(b.key()))));
            }
            List<Double> after = redis.cap(ceilings);
            for (int i = 0; i < chunk.size(); i++) {
                mirrors.adopt(chunk.get(i).key(), after.get(i), nowNanos);
            }
        }
    }
}
