package dev.shaper.internals.redis;

/** Redis did not answer in time, refused the connection or failed the command; admission falls back to local. */
public final class RedisUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
