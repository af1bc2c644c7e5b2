package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Full scans of the key states an inner store holds, the virtual time's entry left out: once when a task starts,
 * and for tests and diagnostics, never on the hot path.
 */
final class KeyStateScan {

    /** Sees each key with queued records in a scan. */
    interface Waiting {
        /** @param band the band its records wait in; null when the state does not say (stored before bands were kept) */
        void key(byte[] recordKey, KeyState state, ScheduleBand band);
    }

    private KeyStateScan() {
    }

    /**
     * What the stored states say is queued, so that a task's queue gauges include what it restored. Only keys with
     * something queued or a recent past are stored, not every key seen. {@code waiting} sees each key with queued
     * records, its state and band.
     */
    static QueuedTotals queuedTotals(KeyValueStore<Bytes, byte[]> inner, Waiting waiting) {
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
                        waiting.key(KeyStateKeys.recordKey(entry.key).get(), state, KeyStateCodec.band(entry.value));
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
