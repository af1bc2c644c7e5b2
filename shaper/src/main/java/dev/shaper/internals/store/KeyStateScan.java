package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.util.function.BiConsumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Full scans of the key states an inner store holds, the virtual time's entry left out: once when a task starts,
 * and for tests and diagnostics, never on the hot path.
 */
final class KeyStateScan {

    private KeyStateScan() {
    }

    /**
     * What the stored states say is queued, so that a task's queue gauges include what it restored. Only keys with
     * something queued or a recent past are stored, not every key seen. {@code waiting} sees each key with queued
     * records, and its state.
     */
    static QueuedTotals queuedTotals(KeyValueStore<Bytes, byte[]> inner, BiConsumer<byte[], KeyState> waiting) {
        long records = 0;
        long units = 0;
        long bytes = 0;
        try (KeyValueIterator<Bytes, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> entry = it.next();
                if (!KeyStateKeys.isClock(entry.key)) {
                    KeyState state = KeyStateCodec.decode(entry.value);
                    records += state.queuedRecords();
                    units += state.queuedUnits();
                    bytes += state.queuedBytes();
                    if (state.queuedRecords() > 0) {
                        waiting.accept(KeyStateKeys.recordKey(entry.key).get(), state);
                    }
                }
            }
        }
        return new QueuedTotals(records, units, bytes);
    }

    /** How many key states the inner store holds. */
    static long count(KeyValueStore<Bytes, byte[]> inner) {
        long count = 0;
        try (KeyValueIterator<Bytes, byte[]> it = inner.all()) {
            while (it.hasNext()) {
                if (!KeyStateKeys.isClock(it.next().key)) {
                    count++;
                }
            }
        }
        return count;
    }
}
