package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * The stored form of the schedule: consecutive queued records of one key in one RocksDB entry, stored
 * under the schedule key of the first of them. One entry (and one changelog record) per key and commit,
 * rather than one per queued record, is what makes a long queue cheap to keep.
 *
 * <p>Binary layout, version 2: {@code version:1 (due:8 length:4 record)*}, in due order, where
 * {@code record} is a {@link QueuedRecord} encoding. Positions are byte offsets into the segment: the
 * first record is at {@link #FIRST}, and a position equal to the segment's length means "past the last".
 *
 * <p>Version 1, before segments, stored one record per entry, under the record's own schedule key: the entry's
 * value is the record's {@link QueuedRecord} encoding, whose own first byte is its version, 1 (so no segment
 * version is ever 1). {@link #read} still reads it, so a store that version wrote still releases its records; an
 * entry of version 1 is never written again, only deleted when its record leaves. Writers write version 2.
 */
final class ScheduleSegment {

    static final byte VERSION = 2;
    /** The first byte of an entry of version 1: its record's {@link QueuedRecord} version. */
    static final byte VERSION_1 = 1;
    /** The position of a segment's first record. */
    static final int FIRST = 1;
    /** The most records one segment holds, so that rewriting what remains of one stays cheap. */
    static final int MAX_RECORDS = 64;

    /**
     * The bytes a segment grows to before it takes no more records, unless one record alone is larger. Bounded
     * so that what remains of a segment, rewritten at a commit after part of it was released, stays cheap; a
     * segment is also never larger than its changelog topic takes ({@link ScheduleStore}).
     */
    static final int TARGET_BYTES = 256 * 1024;
    /** A segment's own bytes around its records: the version. */
    static final int FRAMING = 1;
    /** The bytes a segment spends on each record besides its encoding: due and length. */
    static final int RECORD_HEADER = Long.BYTES + Integer.BYTES;

    private ScheduleSegment() {
    }

    /** A segment of {@code segmentBytes} in all, its records to be added with {@link #append}. */
    static ByteBuffer start(int segmentBytes) {
        return ByteBuffer.allocate(segmentBytes).put(VERSION);
    }

    /** Adds a record due at {@code dueNanos} to a segment begun by {@link #start}. */
    static void append(ByteBuffer segment, long dueNanos, byte[] value) {
        segment.putLong(dueNanos).putInt(value.length).put(value);
    }

    /**
     * The entry {@code stored} under {@code scheduleKey} (as its band sees it) as a segment of version 2: a segment
     * as it is, an entry of version 1 as a segment of its one record. Fails with a message naming the entry and
     * the version when it is neither.
     */
    static byte[] read(Bytes scheduleKey, byte[] stored) {
        byte version = stored.length == 0 ? 0 : stored[0];
        return switch (version) {
            case VERSION -> stored;
            case VERSION_1 -> ofVersion1(ScheduleKeys.due(scheduleKey), stored);
            default -> throw UnreadableFormat.version("schedule store entry " + scheduleKey, stored,
                    "versions 1 (a record per entry) and 2 (segments)");
        };
    }

    /** The segment of the one record of an entry of version 1, which is its value; its due is in its key. */
    private static byte[] ofVersion1(long dueNanos, byte[] record) {
        ByteBuffer segment = start(FRAMING + RECORD_HEADER + record.length);
        append(segment, dueNanos, record);
        return segment.array();
    }

    static long dueAt(byte[] segment, int position) {
        return ByteBuffer.wrap(segment).getLong(position);
    }

    static byte[] recordAt(byte[] segment, int position) {
        int length = ByteBuffer.wrap(segment).getInt(position + Long.BYTES);
        int start = position + RECORD_HEADER;
        return Arrays.copyOfRange(segment, start, start + length);
    }

    /** The position after the record at {@code position}. */
    static int next(byte[] segment, int position) {
        return position + RECORD_HEADER + ByteBuffer.wrap(segment).getInt(position + Long.BYTES);
    }

    /** A segment of the records from {@code position} on. */
    static byte[] rest(byte[] segment, int position) {
        byte[] rest = new byte[1 + segment.length - position];
        rest[0] = VERSION;
        System.arraycopy(segment, position, rest, 1, segment.length - position);
        return rest;
    }
}
