package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A record waiting in the schedule store, with what the release needs: its original timestamp, value
 * and headers (the key is part of the schedule key), when it was queued, its cost and its deadline.
 *
 * <p>Binary layout, version 1 (a record without a deadline, the form every earlier release wrote):
 * {@code version:1 timestamp:8 enqueuedWallMs:8 cost:8 headerCount:4 (nameLength:4 name valueLength:4 value)*
 * valueLength:4 value}; a length of -1 stands for null. Version 2, a record with a deadline, has
 * {@code deadlineMs:8} after the cost, the rest as version 1. Both are read; a record without a deadline is still
 * written as version 1, so that only records that use the new header need this release to be read.
 *
 * @param deadlineMs the wall-clock time (epoch ms) it must leave by; {@link #NO_DEADLINE} for none
 */
public record QueuedRecord(long timestamp, long enqueuedWallMs, long cost, long deadlineMs, Headers headers,
                           byte[] value) {

    /** A record without a deadline. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    private static final byte WITHOUT_DEADLINE = 1;
    private static final byte WITH_DEADLINE = 2;
    private static final int DEADLINE_OFFSET = 1 + 8 + 8 + 8;

    /** A record without a deadline. */
    public QueuedRecord(long timestamp, long enqueuedWallMs, long cost, Headers headers, byte[] value) {
        this(timestamp, enqueuedWallMs, cost, NO_DEADLINE, headers, value);
    }

    public byte[] encode() {
        boolean withDeadline = deadlineMs != NO_DEADLINE;
        Header[] all = headers.toArray();
        int size = 1 + 8 + 8 + 8 + (withDeadline ? 8 : 0) + 4 + 4 + length(value);
        byte[][] names = new byte[all.length][];
        for (int i = 0; i < all.length; i++) {
            names[i] = all[i].key().getBytes(StandardCharsets.UTF_8);
            size += 8 + names[i].length + length(all[i].value());
        }
        ByteBuffer buf = ByteBuffer.allocate(size).put(withDeadline ? WITH_DEADLINE : WITHOUT_DEADLINE)
                .putLong(timestamp).putLong(enqueuedWallMs).putLong(cost);
        if (withDeadline) {
            buf.putLong(deadlineMs);
        }
        buf.putInt(all.length);
        for (int i = 0; i < all.length; i++) {
            buf.putInt(names[i].length).put(names[i]);
            putNullable(buf, all[i].value());
        }
        putNullable(buf, value);
        return buf.array();
    }

    /** The timestamp of an encoded record (its timestamp on the input topic), read without decoding the rest. */
    public static long timestampOf(byte[] encoded) {
        return ByteBuffer.wrap(encoded).getLong(1);
    }

    /** When an encoded record was queued (wall-clock milliseconds), read without decoding the rest. */
    public static long enqueuedWallMsOf(byte[] encoded) {
        return ByteBuffer.wrap(encoded).getLong(1 + 8);
    }

    /** The cost of an encoded record, read without decoding the rest. */
    public static long costOf(byte[] encoded) {
        return ByteBuffer.wrap(encoded).getLong(1 + 8 + 8);
    }

    /** The deadline of an encoded record, {@link #NO_DEADLINE} for none, read without decoding the rest. */
    public static long deadlineOf(byte[] encoded) {
        return encoded[0] == WITH_DEADLINE ? ByteBuffer.wrap(encoded).getLong(DEADLINE_OFFSET) : NO_DEADLINE;
    }

    public static QueuedRecord decode(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        byte version = buf.get();
        if (version != WITHOUT_DEADLINE && version != WITH_DEADLINE) {
            throw new IllegalStateException("unknown queued-record format version " + version);
        }
        long timestamp = buf.getLong();
        long enqueuedWallMs = buf.getLong();
        long cost = buf.getLong();
        long deadlineMs = version == WITH_DEADLINE ? buf.getLong() : NO_DEADLINE;
        int count = buf.getInt();
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < count; i++) {
            byte[] name = new byte[buf.getInt()];
            buf.get(name);
            headers.add(new String(name, StandardCharsets.UTF_8), getNullable(buf));
        }
        return new QueuedRecord(timestamp, enqueuedWallMs, cost, deadlineMs, headers, getNullable(buf));
    }

    /** The bytes a queued record occupies in the schedule store: its key and its encoded form. */
    public static long storedSize(byte[] key, byte[] encoded) {
        return (long) key.length + encoded.length;
    }

    private static int length(byte[] b) {
        return b == null ? 0 : b.length;
    }

    private static void putNullable(ByteBuffer buf, byte[] b) {
        if (b == null) {
            buf.putInt(-1);
        } else {
            buf.putInt(b.length).put(b);
        }
    }

    private static byte[] getNullable(ByteBuffer buf) {
        int len = buf.getInt();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        buf.get(b);
        return b;
    }
}
