package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The task's virtual time as a {@link KeyStateStore} sees it: the time that tells idle states from live ones, and
 * the time saved for a restart, stored under {@link KeyStateKeys#CLOCK} (8 bytes, big-endian) beside the states.
 *
 * <p>The saved time is written with a commit, and only while the store may hold a key state: it means something
 * only beside stored states (their times are virtual), and a queued record always has one. So traffic that never
 * waits across a commit leaves the store, its changelog and the commit's transaction untouched. A time left behind
 * from earlier is harmless: with no state beside it, any start time decides alike.
 */
final class StoredVirtualClock {

    private final KeyValueStore<Bytes, byte[]> inner;
    private long nowNanos = Long.MIN_VALUE;
    /** Saved since the last write, or not yet written because no state was stored; null if there is none. */
    private Long saved;

    StoredVirtualClock(KeyValueStore<Bytes, byte[]> inner) {
        this.inner = inner;
    }

    /** The task's virtual time now, which decides which states are idle. */
    long now() {
        return nowNanos;
    }

    void setNow(long nanos) {
        nowNanos = nanos;
    }

    /** The time the inner store holds, or null if the task never wrote one. */
    Long load() {
        byte[] raw = inner.get(KeyStateKeys.CLOCK);
        return raw == null ? null : decode(raw);
    }

    /** Keeps {@code nanos} for the next commit that writes the time. */
    void save(long nanos) {
        saved = nanos;
    }

    /** Adds the saved time to a commit's {@code batch} if the inner store may hold a state; else keeps it. */
    void addTo(List<KeyValue<Bytes, byte[]>> batch, boolean statesMayBeStored) {
        if (saved != null && statesMayBeStored) {
            batch.add(KeyValue.pair(KeyStateKeys.CLOCK, encode(saved)));
            saved = null;
        }
    }

    /** Forgets the saved time: it belongs to input that will be processed again. */
    void discard() {
        saved = null;
    }

    static byte[] encode(long nanos) {
        return ByteBuffer.allocate(Long.BYTES).putLong(nanos).array();
    }

    static long decode(byte[] raw) {
        return ByteBuffer.wrap(raw).getLong();
    }
}
