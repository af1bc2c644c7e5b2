package dev.shaper.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.KeyValue;

/**
 * The stores' entries as the shaper's version before schedule segments wrote them, and so as its changelogs carry
 * them, for a test that starts this version on them. Each layout is written out here by hand, not through this
 * version's classes, which may change: {@code VersionOneStateTest} checks that the bytes are the committed
 * fixtures of that version (formats/*.hex).
 *
 * <ul>
 *   <li>schedule store: one entry per queued record, under the schedule key (due, 8 bytes, big-endian, sign bit
 *       flipped; then the record key), its value the record's encoding, version 1;</li>
 *   <li>key-state store: a key's state (version 1, 37 bytes) under 0x01 + record key, the task's virtual time (8
 *       bytes) under 0x00.</li>
 * </ul>
 */
public final class VersionOneState {

    private VersionOneState() {
    }

    /** A queued record's entry in the schedule store. */
    public static KeyValue<byte[], byte[]> scheduleEntry(String key, long dueNanos, long timestampMs,
                                                         long enqueuedWallMs, long cost, Headers headers,
                                                         byte[] value) {
        byte[] recordKey = key.getBytes(StandardCharsets.UTF_8);
        byte[] scheduleKey = ByteBuffer.allocate(Long.BYTES + recordKey.length).putLong(dueNanos ^ Long.MIN_VALUE)
                .put(recordKey).array();
        return KeyValue.pair(scheduleKey, queuedRecord(timestampMs, enqueuedWallMs, cost, headers, value));
    }

    /** A key's state in the key-state store. */
    public static KeyValue<byte[], byte[]> keyState(String key, long tatNanos, int queuedRecords, long queuedUnits,
                                                    long queuedBytes, long releaseTatNanos) {
        byte[] recordKey = key.getBytes(StandardCharsets.UTF_8);
        byte[] storeKey = ByteBuffer.allocate(1 + recordKey.length).put((byte) 1).put(recordKey).array();
        byte[] state = ByteBuffer.allocate(37).put((byte) 1).putLong(tatNanos).putInt(queuedRecords)
                .putLong(queuedUnits).putLong(queuedBytes).putLong(releaseTatNanos).array();
        return KeyValue.pair(storeKey, state);
    }

    /** The task's virtual time in the key-state store. */
    public static KeyValue<byte[], byte[]> virtualTime(long nanos) {
        return KeyValue.pair(new byte[] {0}, ByteBuffer.allocate(Long.BYTES).putLong(nanos).array());
    }

    /**
     * The bytes a key state counts for a queued record: its record key and its encoding (the schedule entry's
     * value).
     */
    public static long queuedBytes(String key, KeyValue<byte[], byte[]> scheduleEntry) {
        return key.getBytes(StandardCharsets.UTF_8).length + scheduleEntry.value.length;
    }

    /**
     * version:1 timestamp:8 enqueuedWallMs:8 cost:8 headerCount:4 (nameLength:4 name valueLength:4 value)*
     * valueLength:4 value; a length of -1 stands for null.
     */
    private static byte[] queuedRecord(long timestampMs, long enqueuedWallMs, long cost, Headers headers,
                                       byte[] value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) { // big-endian, as ByteBuffer
            Header[] all = headers.toArray();
            out.writeByte(1);
            out.writeLong(timestampMs);
            out.writeLong(enqueuedWallMs);
            out.writeLong(cost);
            out.writeInt(all.length);
            for (Header header : all) {
                writeNullable(out, header.key().getBytes(StandardCharsets.UTF_8));
                writeNullable(out, header.value());
            }
            writeNullable(out, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void writeNullable(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes == null ? -1 : bytes.length);
        if (bytes != null) {
            out.write(bytes);
        }
    }
}
