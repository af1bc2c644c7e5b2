package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisUnavailableException;
import java.time.Duration;

/**
 * A backend that decides on Redis, with what the {@link AdmissionController} needs to switch away from it and
 * back: the periodic reconciliation with Redis, if any, and the balances a return to Redis writes back.
 */
interface RedisBackend extends AdmissionBackend {

    /** How often {@link #sync} must run while admission is on Redis; null for a backend that needs no sync. */
    default Duration syncInterval() {
        return null;
    }

    /**
     * Reconciles with Redis what was decided without asking it. When Redis fails, the local fallback has been
     * given what this backend knows before the exception is thrown, so no record finds a fresh local bucket once
     * admission switches.
     */
    default void sync(long nowNanos) throws RedisUnavailableException {
    }

    /** Before admission returns to Redis: writes the local fallback's balances back to the shared buckets. */
    void handBack(long nowNanos) throws RedisUnavailableException;

    /** At close: charges Redis with what was admitted since the last sync. */
    default void flush(long nowNanos) throws RedisUnavailableException {
    }
}
