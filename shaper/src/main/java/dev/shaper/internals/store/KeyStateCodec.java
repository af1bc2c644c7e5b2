package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.nio.ByteBuffer;

/**
 * Binary form of a key's {@link KeyState} and, while the key has records queued, the {@link ScheduleBand} they wait
 * in. Version 1: {@code version:1 tat:8 queuedRecords:4 queuedUnits:8 queuedBytes:8 releaseTat:8}, then, only while
 * records are queued, the band {@code priority:1 weight:8}. The band is a trailer, not a new version: a reader that
 * does not know it (an earlier release, after a roll-back) reads the state and ignores the rest, and a state written
 * before bands were kept reads as one whose band is unknown.
 *
 * <p>The writer writes the current version; the reader reads each version it knows (the current one and, once there
 * is one, the one before) and refuses any other with a message naming the version (see docs/upgrading.md). Version
 * 1 had a shorter layout for a while, without the release schedule ({@code releaseTat}); no release wrote it, so it
 * is refused, not read.
 */
final class KeyStateCodec {

    private static final byte VERSION = 1;
    private static final int SIZE = 1 + 8 + 4 + 8 + 8 + 8;
    private static final int BAND_SIZE = 1 + 8;
    /** The versions {@link #decode} reads, for its refusals. */
    private static final String READABLE = "version 1 (" + SIZE + " bytes, or " + (SIZE + BAND_SIZE)
            + " with the band)";
    private static final String WHAT = "a key state in the key-state store";

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
        if (bytes.length == 0) {
            throw UnreadableFormat.version(WHAT, bytes, READABLE);
        }
        return switch (bytes[0]) {
            case VERSION -> version1(bytes);
            default -> throw UnreadableFormat.version(WHAT, bytes, READABLE);
        };
    }

    private static KeyState version1(byte[] bytes) {
        if (bytes.length != SIZE && bytes.length != SIZE + BAND_SIZE) {
            throw UnreadableFormat.layout(WHAT, "has format version 1 but " + bytes.length + " bytes, not " + SIZE
                    + " or " + (SIZE + BAND_SIZE));
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, 1, SIZE - 1);
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
