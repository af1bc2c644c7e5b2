package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.nio.ByteBuffer;

/**
 * Binary form of {@link KeyState}, version 1:
 * {@code version:1 tat:8 queuedRecords:4 queuedUnits:8 queuedBytes:8 releaseTat:8}.
 */
final class KeyStateCodec {

    private static final byte VERSION = 1;
    private static final int SIZE = 1 + 8 + 4 + 8 + 8 + 8;

    private KeyStateCodec() {
    }

    static byte[] encode(KeyState state) {
        return ByteBuffer.allocate(SIZE).put(VERSION).putLong(state.tatNanos()).putInt(state.queuedRecords())
                .putLong(state.queuedUnits()).putLong(state.queuedBytes()).putLong(state.releaseTatNanos()).array();
    }

    static KeyState decode(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        byte version = buf.get();
        if (version != VERSION) {
            throw new IllegalStateException("unknown key-state format version " + version);
        }
        return new KeyState(buf.getLong(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong());
    }
}
