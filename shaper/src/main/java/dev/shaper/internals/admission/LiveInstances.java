package dev.shaper.internals.admission;

import java.util.function.IntSupplier;

/**
 * The number of live shaper instances as last counted, by which the local fallback divides each rule. Counting
 * may ask the Kafka cluster, so it is refreshed in the background and a record only reads the last count.
 */
final class LiveInstances {

    private final IntSupplier counter;
    private volatile int count = 1;

    LiveInstances(IntSupplier counter) {
        this.counter = counter;
    }

    /** The last count, at least 1. */
    int count() {
        return count;
    }

    void refresh() {
        try {
            count = Math.max(1, counter.getAsInt());
        } catch (RuntimeException e) {
            // not countable now (e.g. no broker answers): keep the last count
        }
    }
}
