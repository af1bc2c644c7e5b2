package dev.shaper.demo.embedded;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Shaped records counted by their release time, per tenth of a second: fine enough to count them in whole seconds
 * from any moment later (to a tenth), compact enough for a run of hours. Thread-safe: one thread adds while another
 * reads.
 */
final class ReleaseHistogram {

    private final Map<Long, LongAdder> perTenth = new ConcurrentHashMap<>();

    /** Counts one record released at {@code releasedMs}, epoch milliseconds. */
    void add(long releasedMs) {
        perTenth.computeIfAbsent(Math.floorDiv(releasedMs, 100), k -> new LongAdder()).increment();
    }

    /**
     * The records in whole seconds from {@code fromEpochMs} (its tenth of a second): element {@code i} counts those
     * released from {@code i} s to {@code i + 1} s after it. Each is a window of one second, so the shaper's bounds
     * for any one second hold for it.
     *
     * @param seconds how many seconds to count
     */
    long[] perSecond(long fromEpochMs, int seconds) {
        long firstTenth = Math.floorDiv(fromEpochMs, 100);
        long[] counts = new long[Math.max(0, seconds)];
        perTenth.forEach((tenth, count) -> {
            long second = Math.floorDiv(tenth - firstTenth, 10);
            if (second >= 0 && second < counts.length) {
                counts[(int) second] += count.sum();
            }
        });
        return counts;
    }
}
