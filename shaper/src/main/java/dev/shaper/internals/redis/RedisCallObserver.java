package dev.shaper.internals.redis;

/** Told of every Redis call the admission makes and how long it took, failed calls included (for metrics). */
@FunctionalInterface
public interface RedisCallObserver {

    /** A no-op observer. */
    RedisCallObserver NONE = (command, nanos) -> { };

    /**
     * @param command {@code take} (strict mode), {@code charge} (batched mode's sync, one pipelined round trip)
     *                or {@code ping} (health check)
     */
    void observe(String command, long nanos);
}
