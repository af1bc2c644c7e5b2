package dev.shaper.internals.store;

/**
 * The bound on the key-state slots that the {@link KeyStateStore}s of one shaper instance keep in memory.
 */
public final class StateCacheBudget {

    private final int maxKeys;

    /** @param maxKeys the most slots the instance's stores keep together (see {@code shaper.state.cache.max.keys}) */
    public StateCacheBudget(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
        }
        this.maxKeys = maxKeys;
    }

    public int maxKeys() {
        return maxKeys;
    }
}
