package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;

/** The fixed window: at most the amount per aligned window ({@code fixed-window.lua}). */
final class FixedWindowAlgorithm extends WindowAlgorithm {

    private static final RedisScript SCRIPT = RedisScript.load("dev/shaper/fixed-window.lua");

    FixedWindowAlgorithm() {
        super(false);
    }

    @Override
    public String configName() {
        return "fixed-window";
    }

    @Override
    public RedisScript script() {
        return SCRIPT;
    }

    /** The current window's count, and the microseconds until it ends. */
    @Override
    public int detailValues() {
        return 2;
    }
}
