package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;

/**
 * The sliding window: the fixed window's counters, the previous window weighted by how much of it the window ending
 * now still covers ({@code sliding-window.lua}).
 */
final class SlidingWindowAlgorithm extends WindowAlgorithm {

    private static final RedisScript SCRIPT = RedisScript.load("dev/shaper/sliding-window.lua");

    SlidingWindowAlgorithm() {
        super(true);
    }

    @Override
    public String configName() {
        return "sliding-window";
    }

    @Override
    public RedisScript script() {
        return SCRIPT;
    }

    /** The current window's count, the previous one's, and the microseconds until the current one ends. */
    @Override
    public int detailValues() {
        return 3;
    }
}
