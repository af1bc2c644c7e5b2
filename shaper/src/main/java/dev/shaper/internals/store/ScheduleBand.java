package dev.shaper.internals.store;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.kafka.common.utils.Bytes;

/**
 * One part of a task's schedule: the queued records of the keys whose rules share a priority and a weight. Each
 * band keeps its records in due order under a key prefix of its own in the one schedule store, so the release scan
 * can go through the bands in priority order and still cost only the records it looks at.
 *
 * <p>The band of priority 0 and weight 1 (every key's band before priorities existed) has no prefix: its schedule
 * keys start with the due, whose first byte is 0x80 or more for any due at or after the epoch, so stores written
 * before bands existed read as that band. Every other band's prefix is one byte below 0x80 (1 + priority) and the
 * weight's eight IEEE 754 bytes, which sort as the weight for positive numbers; the prefix names the band by itself,
 * so a store restored after the rules changed still finds every band it holds.
 */
public record ScheduleBand(int priority, double weight) {

    /** Priority 0, weight 1: the band without a prefix. */
    public static final ScheduleBand DEFAULT = new ScheduleBand(0, 1.0);

    /** Prefixes of the other bands take the bytes below this one; the default band's keys start at it or above. */
    static final byte DEFAULT_BAND_FIRST_BYTE = (byte) 0x80;
    static final int PREFIX_LENGTH = 1 + Double.BYTES;

    /** Higher priority (lower number) first, then heavier weight first. */
    public static final Comparator<ScheduleBand> RELEASE_ORDER = Comparator.comparingInt(ScheduleBand::priority)
            .thenComparing(Comparator.comparingDouble(ScheduleBand::weight).reversed());

    public ScheduleBand {
        if (priority < 0 || priority > 126) {
            throw new IllegalArgumentException("a band's priority must be 0..126, got " + priority);
        }
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("a band's weight must be a finite number > 0, got " + weight);
        }
    }

    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /** The bytes before every schedule key of this band: none for the default band. */
    byte[] prefix() {
        if (isDefault()) {
            return new byte[0];
        }
        return ByteBuffer.allocate(PREFIX_LENGTH).put((byte) (1 + priority)).putDouble(weight).array();
    }

    /** The band whose prefix starts {@code storeKey}, a key below the default band's (see the class comment). */
    static ScheduleBand ofPrefixed(Bytes storeKey) {
        byte[] key = storeKey.get();
        if (key.length < PREFIX_LENGTH || key[0] < 1) {
            throw new IllegalStateException("not a banded schedule key: " + storeKey);
        }
        ByteBuffer buffer = ByteBuffer.wrap(key, 0, PREFIX_LENGTH);
        return new ScheduleBand(buffer.get() - 1, buffer.getDouble());
    }

    /** The first store key after every key of this band's prefix. */
    static Bytes afterPrefix(Bytes storeKey) {
        byte[] prefix = Arrays.copyOf(storeKey.get(), PREFIX_LENGTH);
        return Bytes.increment(Bytes.wrap(prefix));
    }
}
