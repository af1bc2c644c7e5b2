package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Consecutive records of one key queued since the last commit, in memory: the in-memory twin of a stored
 * {@link ScheduleSegment}. Appending and releasing the head are constant time, with no tree walk or byte-array
 * comparison per record (what it replaced: docs/decisions/0002-key-state-cache.md).
 *
 * <p>A run keeps the schedule key of its first record as its position for its whole life, so its place in
 * the schedule's order never moves; records leave from the head and arrive at the tail, at most
 * {@link ScheduleSegment#MAX_RECORDS} in all, which is also the most a commit writes as one segment (and the
 * {@link ScheduleStore} ends a run earlier, at a span of due times or at a segment's size in bytes).
 */
final class BufferedRun {

    private final Bytes position;
    private final byte[] recordKey;
    private long[] dues = new long[4];
    private byte[][] values = new byte[4][];
    /** Records {@code [head, size)} are queued; those before the head were released. */
    private int head;
    private int size;
    /** The bytes of a {@link ScheduleSegment} of records {@code [head, size)}. */
    private int segmentBytes = ScheduleSegment.FRAMING;

    BufferedRun(byte[] recordKey, long firstDueNanos) {
        this.recordKey = recordKey;
        this.position = ScheduleKeys.of(firstDueNanos, recordKey);
    }

    Bytes position() {
        return position;
    }

    byte[] recordKey() {
        return recordKey;
    }

    /**
     * Whether a record of this run's key due at {@code dueNanos}, of {@code valueBytes}, may join it: the run still
     * holds records (an empty run has left the schedule's order), has room for one more record and for its bytes
     * within {@code maxSegmentBytes}, and its dues would span less than {@code maxSpanNanos} (a negative span is an
     * overflow at the ends of time).
     */
    boolean accepts(long dueNanos, int valueBytes, long maxSpanNanos, long maxSegmentBytes) {
        long span = dueNanos - dues[0];
        return !isEmpty() && size < ScheduleSegment.MAX_RECORDS && span >= 0 && span < maxSpanNanos
                && (long) segmentBytes + ScheduleSegment.RECORD_HEADER + valueBytes <= maxSegmentBytes;
    }

    /** One {@link ScheduleSegment} of the records this run still holds. */
    byte[] encode() {
        ByteBuffer segment = ScheduleSegment.start(segmentBytes());
        for (int i = head(); i < size(); i++) {
            ScheduleSegment.append(segment, dueAt(i), valueAt(i));
        }
        return segment.array();
    }

    /** The bytes of a {@link ScheduleSegment} of the records this run still holds. */
    int segmentBytes() {
        return segmentBytes;
    }

    boolean isEmpty() {
        return head == size;
    }

    void append(long dueNanos, byte[] value) {
        if (size == dues.length) {
            int capacity = Math.min(ScheduleSegment.MAX_RECORDS, 2 * size);
            dues = Arrays.copyOf(dues, capacity);
            values = Arrays.copyOf(values, capacity);
        }
        dues[size] = dueNanos;
        values[size] = value;
        size++;
        segmentBytes += ScheduleSegment.RECORD_HEADER + value.length;
    }

    int head() {
        return head;
    }

    int size() {
        return size;
    }

    long dueAt(int index) {
        return dues[index];
    }

    byte[] valueAt(int index) {
        return values[index];
    }

    /** Releases the head record, which must be the one at {@code index}; false if it is not. */
    boolean releaseHead(int index) {
        if (index != head || head == size) {
            return false;
        }
        segmentBytes -= ScheduleSegment.RECORD_HEADER + values[head].length;
        values[head++] = null;
        return true;
    }
}
