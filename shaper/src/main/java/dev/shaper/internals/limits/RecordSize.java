package dev.shaper.internals.limits;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Utils;

/**
 * An upper bound of the bytes one record takes when it is sent alone in a record batch (Kafka's format v2), which
 * is what both the producer's {@code max.request.size} and a topic's {@code max.message.bytes} are checked
 * against. Every variable-length integer is counted at its widest, so the bound never falls short of what the
 * producer and the broker compute; it exceeds it by a few dozen bytes at most.
 */
public final class RecordSize {

    /** A record batch's header (base offset, length, epoch, magic, CRC, attributes, offsets, times, ids, count). */
    static final int BATCH_HEADER = 61;
    private static final int VARINT = 5;
    private static final int VARLONG = 10;
    /** A record's own framing: its length, attributes, timestamp and offset deltas, key and value lengths, header count. */
    private static final int RECORD_FRAMING = VARINT + 1 + VARLONG + VARINT + VARINT + VARINT + VARINT;
    /** One header's framing: the lengths of its name and value. */
    private static final int HEADER_FRAMING = 2 * VARINT;

    private RecordSize() {
    }

    /** The bound for a record with these parts; a null key or value counts as empty. */
    public static long of(byte[] key, byte[] value, Headers headers) {
        return of(length(key), length(value), headerBytes(headers));
    }

    /**
     * The bound for a record whose key and value have these lengths and whose headers take {@code headerBytes}
     * (as {@link #headerBytes} counts them).
     */
    public static long of(long keyBytes, long valueBytes, long headerBytes) {
        return BATCH_HEADER + RECORD_FRAMING + keyBytes + valueBytes + headerBytes;
    }

    /** The bytes {@code headers} add to a record: each name (as UTF-8), value and their framing. */
    public static long headerBytes(Headers headers) {
        long bytes = 0;
        for (Header header : headers) {
            bytes += header(Utils.utf8Length(header.key()), length(header.value()));
        }
        return bytes;
    }

    /** The bytes one header with a name and value of these lengths adds to a record. */
    public static long header(long nameBytes, long valueBytes) {
        return HEADER_FRAMING + nameBytes + valueBytes;
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }
}
