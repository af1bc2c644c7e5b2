package dev.shaper.internals.limits;

/**
 * The largest record, as {@link RecordSize} bounds it, that one destination takes, and what sets that limit (for
 * the detail of a rejected record and the start log).
 *
 * @param bytes  the limit
 * @param source what sets it, e.g. "max.message.bytes of topic shaped (200000)"
 */
public record SizeLimit(long bytes, String source) {

    /**
     * Compressed data that does not shrink grows a little (frame headers, block trailers); a destination that
     * compresses keeps this share of its limit free. Generous for gzip, lz4, snappy and zstd on incompressible data.
     */
    static final int COMPRESSION_SLACK_DIVISOR = 64;

    public SizeLimit {
        if (bytes < 1) {
            throw new IllegalArgumentException("a size limit must be at least 1 byte, got " + bytes + " (" + source + ")");
        }
    }

    /** The producer's own limit, which applies to every topic it writes. */
    public static SizeLimit producer(int maxRequestSize) {
        return new SizeLimit(maxRequestSize, "the producer's max.request.size (" + maxRequestSize + ")");
    }

    /** A topic's limit, {@code max.message.bytes}, as the broker reported it or as the shaper creates the topic. */
    public static SizeLimit topic(String topic, long maxMessageBytes) {
        return new SizeLimit(maxMessageBytes, "max.message.bytes of topic " + topic + " (" + maxMessageBytes + ")");
    }

    /** The stricter of the two. */
    public SizeLimit min(SizeLimit other) {
        return other.bytes < bytes ? other : this;
    }

    /** This limit less the slack a compressed batch may need; the source says so. */
    public SizeLimit compressed() {
        return new SizeLimit(bytes - bytes / COMPRESSION_SLACK_DIVISOR, source + ", less a 1/"
                + COMPRESSION_SLACK_DIVISOR + " reserve for compression");
    }

    /** Whether a record bounded at {@code recordBytes} fits. */
    public boolean fits(long recordBytes) {
        return recordBytes <= bytes;
    }
}
