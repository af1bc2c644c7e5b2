package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.nio.ByteBuffer;

/**
 * Binary form of a key's {@link KeyState} and, while the key has records queued, the {@link ScheduleBand} they wait
 * in. Version 1: {@code version:1 tat:8 queuedRecords:4 queuedUnits:8 queuedBytes:8 releaseTat:8}, then, only while
 * records are queued, the band {@code priority:1 weight:8}. The band is a trailer, not a new version: a reader that
 * does not know it (an earlier release, after a roll-back) reads the state and ignores the rest, and a state written
 * before bands were kept reads as one whose band is unknown.
 */
final class KeyStateCodec {

    private static final byte VERSION = 1;
    private static final int SIZE = 1 + 8 + 4 + 8 + 8 + 8;
    private static final int BAND_SIZE = 1 + 8;

    private KeyStateCodec() {
    }

    static byte[] encode(KeyState state) {
        return encode(state, null);
    }

    /** @param band the band the key's queued records wait in; written only while records are queued */
    static byte[] encode(KeyState state, ScheduleBand band) {
        boolean withBand = band != null && state.queuedRecords() > 0;
        ByteBuffer buf = ByteBuffer.allocate(withBand ? SIZE + BAND_SIZE : SIZE).put(VERSION)
                .putLong(state.tatNanos()).putInt(state.queuedRecords()).putLong(state.queuedUnits())
                .putLong(state.queuedBytes()).putLong(state.releaseTatNanos());
        if (withBand) {
            buf.put((byte) band.priority()).putDouble(band.weight());
        }
        return buf.array();
    }

    static KeyState decode(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        byte version = buf.get();
        if (version != VERSION) {
            throw new IllegalStateException("unknown key-state format version " + version);
        }
        return new KeyState(buf.getLong(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong());
    }

    /** The band the key's queued records wait in, or null when none is written (nothing queued, or unknown). */
    static ScheduleBand band(byte[] bytes) {
        if (bytes.length < SIZE + BAND_SIZE) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, SIZE, BAND_SIZE);
        ScheduleBand band = new ScheduleBand(buf.get(), buf.getDouble());
        return band.isDefault() ? ScheduleBand.DEFAULT : band;
    }
}
