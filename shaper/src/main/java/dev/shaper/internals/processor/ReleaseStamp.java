package dev.shaper.internals.processor;

import java.nio.charset.StandardCharsets;

/**
 * The value of the {@code shaper.released.ms} header: epoch milliseconds as UTF-8 text, made once per
 * millisecond and shared by the records released in it, rather than once per record (headers are on the hot
 * path). Not thread-safe: one per processor.
 */
public final class ReleaseStamp {

    private long ms = Long.MIN_VALUE;
    private byte[] bytes;

    /** The header value for {@code wallMs}; the same array until the millisecond changes. Not to be changed. */
    public byte[] at(long wallMs) {
        if (wallMs != ms) {
            ms = wallMs;
            bytes = Long.toString(wallMs).getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }
}
