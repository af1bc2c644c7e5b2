package dev.shaper.internals.admission;

/**
 * Redis is up, but one bucket cannot be used: its key holds another type of value (something else wrote to
 * {@code shaper:tb:{key}}). Only that key is decided locally; admission stays on Redis for the others.
 */
public final class BucketUnusableException extends Exception {
    private static final long serialVersionUID = 1L;

    public BucketUnusableException(String message, Throwable cause) {
        super(message, cause);
    }

    static boolean isWrongType(String redisError) {
        return redisError != null && redisError.startsWith("WRONGTYPE");
    }
}
