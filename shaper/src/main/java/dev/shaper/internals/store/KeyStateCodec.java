package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.nio.ByteBuffer;

/**
 * Binary form of {@link KeyState}, version 1:
 * {@code version:1 tat:8 queuedRecords:4 queuedUnits:8 queuedBytes:8 releaseTat:8}.
 *
 * <p>The writer writes the current version; the reader reads each version it knows (the current one and, once there
 * is one, the one before) and refuses any other with a message naming the version (see docs/upgrading.md). Version
 * 1 had a shorter layout for a while, without the release schedule ({@code releaseTat}); no release wrote it, so it
 * is refused, not read.
 */
final class KeyStateCodec {

    private static final byte VERSION = 1;
    private static final int SIZE = 1 + 8 + 4 + 8 + 8 + 8;
    /** The versions {@link #decode} reads, for its refusals. */
    private static final String READABLE = "version 1 (" + SIZE + " bytes)";
    private static final String WHAT = "a key state in the key-state store";

    private KeyStateCodec() {
    }

    static byte[] encode(KeyState state) {
        return ByteBuffer.allocate(SIZE).put(VERSION).putLong(state.tatNanos()).putInt(state.queuedRecords())
                .putLong(state.queuedUnits()).putLong(state.queuedBytes()).putLong(state.releaseTatNanos()).array();
    }

    static KeyState decode(byte[] bytes) {
        if (bytes.length == 0) {
            throw UnreadableFormat.version(WHAT, bytes, READABLE);
        }
        return switch (bytes[0]) {
            case VERSION -> version1(bytes);
            default -> throw UnreadableFormat.version(WHAT, bytes, READABLE);
        };
    }

    private static KeyState version1(byte[] bytes) {
        if (bytes.length != SIZE) {
            throw UnreadableFormat.layout(WHAT, "has format version 1 but " + bytes.length + " bytes, not " + SIZE);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, 1, SIZE - 1);
        return new KeyState(buf.getLong(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong());
    }
}
