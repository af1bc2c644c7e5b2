package dev.shaper.internals.admission;

import java.util.function.IntSupplier;

/**
 * The number of live shaper instances as last counted, by which the local fallback divides each rule. Counting
 * may ask the Kafka cluster, so it is refreshed in the background and a record only reads the last count. Until a
 * count has succeeded, the count assumed is the most instances that can be admitting at once (one per input
 * partition), so that a start without Redis never admits more than the limit for want of a count.
 */
final class LiveInstances {

    private final IntSupplier counter;
    private volatile int count;

    /** @param assumedBeforeCount the count until the first one succeeds (at least 1) */
    LiveInstances(IntSupplier counter, int assumedBeforeCount) {
        this.counter = counter;
        this.count = Math.max(1, assumedBeforeCount);
    }

    /** The last count, at least 1. */
    int count() {
        return count;
    }

    void refresh() {
        try {
            int counted = counter.getAsInt();
            if (counted >= 1) {
                count = counted;
            } // 0: the group has no member yet (this instance has not joined): not a count
        } catch (RuntimeException e) {
            // not countable now (e.g. no broker answers): keep the last count
        }
    }
}
