package dev.shaper.internals.admission;

/** The fixed window: at most the amount per aligned window ({@code fixed-window.lua}). */
final class FixedWindowAlgorithm extends WindowAlgorithm {

    FixedWindowAlgorithm() {
        super("fixed-window", "dev/shaper/fixed-window.lua", false);
    }

    /** The current window's count, and the microseconds until it ends. */
    @Override
    public int detailValues() {
        return 2;
    }
}
