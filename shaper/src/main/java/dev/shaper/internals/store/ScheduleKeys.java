package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Keys of the schedule store: the due time (8 bytes, big-endian) followed by the record key. RocksDB
 * orders keys byte-wise, so iteration order is departure order. Dues of one key are strictly increasing,
 * which makes the pair unique without a sequence number.
 */
public final class ScheduleKeys {

    private static final int DUE_BYTES = Long.BYTES;

    private ScheduleKeys() {
    }

    public static Bytes of(long dueNanos, byte[] recordKey) {
        return Bytes.wrap(ByteBuffer.allocate(DUE_BYTES + recordKey.length)
                .putLong(sortable(dueNanos)).put(recordKey).array());
    }

    /**
     * Compares the schedule key of {@code dueNanos} and {@code recordKey} with {@code key}, in store order, without
     * building it: a release scan compares every due record with its bound.
     */
    public static int compare(long dueNanos, byte[] recordKey, Bytes key) {
        byte[] other = key.get();
        if (other.length < DUE_BYTES) {
            return Arrays.compareUnsigned(of(dueNanos, recordKey).get(), other);
        }
        // Eight big-endian bytes compare unsigned as the long they encode does.
        int byDue = Long.compareUnsigned(sortable(dueNanos), ByteBuffer.wrap(other).getLong());
        return byDue != 0 ? byDue
                : Arrays.compareUnsigned(recordKey, 0, recordKey.length, other, DUE_BYTES, other.length);
    }

    /** The length of the schedule keys of {@code recordKey}. */
    public static int length(byte[] recordKey) {
        return DUE_BYTES + recordKey.length;
    }

    /** The smallest schedule key with this due time. */
    public static Bytes lowerBound(long dueNanos) {
        return Bytes.wrap(ByteBuffer.allocate(DUE_BYTES).putLong(sortable(dueNanos)).array());
    }

    public static long due(Bytes scheduleKey) {
        return sortable(ByteBuffer.wrap(scheduleKey.get()).getLong());
    }

    public static byte[] recordKey(Bytes scheduleKey) {
        byte[] raw = scheduleKey.get();
        return Arrays.copyOfRange(raw, DUE_BYTES, raw.length);
    }

    /** Flips the sign bit so that byte-wise unsigned order equals signed numeric order (an involution). */
    private static long sortable(long value) {
        return value ^ Long.MIN_VALUE;
    }
}
