package dev.shaper.demo.db;

import java.time.Duration;
import java.util.Objects;

/**
 * A fault the DB writer injects, as when the database slows down: from {@code start} after the writer started, for
 * {@code length}, each database batch takes {@code extraDelay} longer, its transaction held open that much before
 * the commit. Written {@code 10s+10s:50ms} on the command line ({@code START+LENGTH:DELAY}).
 *
 * @param start      when the slowdown begins, after the writer started (0 or more)
 * @param length     how long it lasts (more than 0)
 * @param extraDelay how much longer each batch that begins within it takes (more than 0)
 */
public record DbSlowdown(Duration start, Duration length, Duration extraDelay) {

    /** A slowdown that breaks none of the rules above. */
    public DbSlowdown {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(length, "length");
        Objects.requireNonNull(extraDelay, "extraDelay");
        if (start.isNegative()) {
            throw new IllegalArgumentException("the slowdown's start must be >= 0, got " + format(start));
        }
        if (length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("the slowdown's length must be > 0, got " + format(length));
        }
        if (extraDelay.isNegative() || extraDelay.isZero()) {
            throw new IllegalArgumentException("the slowdown's extra delay must be > 0, got " + format(extraDelay));
        }
    }

    /**
     * How much longer a batch that begins {@code sinceStartNanos} after the writer started takes: the extra delay
     * from {@code start} (included) to {@code start + length} (excluded), 0 before and after.
     */
    public long extraDelayNanos(long sinceStartNanos) {
        long fromStart = sinceStartNanos - start.toNanos();
        return fromStart >= 0 && fromStart < length.toNanos() ? extraDelay.toNanos() : 0;
    }

    /** In words: {@code from 10s after the start, for 10s, each batch 50ms slower}. */
    public String describe() {
        return "from " + format(start) + " after the start, for " + format(length) + ", each batch "
                + format(extraDelay) + " slower";
    }

    /** As on the command line, {@code START+LENGTH:DELAY}. */
    @Override
    public String toString() {
        return format(start) + "+" + format(length) + ":" + format(extraDelay);
    }

    private static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
