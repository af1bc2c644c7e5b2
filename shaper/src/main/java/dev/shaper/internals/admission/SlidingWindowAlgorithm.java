package dev.shaper.internals.admission;

/**
 * The sliding window: the fixed window's counters, the previous window weighted by how much of it the window ending
 * now still covers ({@code sliding-window.lua}).
 */
final class SlidingWindowAlgorithm extends WindowAlgorithm {

    SlidingWindowAlgorithm() {
        super("sliding-window", "dev/shaper/sliding-window.lua", true);
    }

    /** The current window's count, the previous one's, and the microseconds until the current one ends. */
    @Override
    public int detailValues() {
        return 3;
    }
}
