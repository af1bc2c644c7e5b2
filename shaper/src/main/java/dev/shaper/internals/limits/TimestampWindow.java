package dev.shaper.internals.limits;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The record timestamps a topic takes, relative to the broker's clock: a topic with {@code CreateTime} refuses a
 * record older than {@code message.timestamp.before.max.ms} or newer than {@code message.timestamp.after.max.ms};
 * one with {@code LogAppendTime} takes any (the broker stamps it).
 *
 * @param beforeMaxMs how far in the past a timestamp may lie ({@link Long#MAX_VALUE}: any)
 * @param afterMaxMs  how far in the future
 * @param source      which topics set it, for a detail
 */
public record TimestampWindow(long beforeMaxMs, long afterMaxMs, String source) {

    /** A window that takes every timestamp. */
    public static final TimestampWindow ANY = new TimestampWindow(Long.MAX_VALUE, Long.MAX_VALUE, "no limit");
    /** Kafka's default of {@code message.timestamp.after.max.ms} (its 4.0 default, an hour). */
    static final long DEFAULT_AFTER_MAX_MS = 3_600_000L;

    /** The window of a topic as the broker describes it. */
    public static TimestampWindow of(String topic, Config config) {
        ConfigEntry type = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
        if (type != null && "LogAppendTime".equals(type.value())) {
            return ANY;
        }
        long before = longOf(config, TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.MAX_VALUE);
        long after = longOf(config, TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, DEFAULT_AFTER_MAX_MS);
        return new TimestampWindow(before, after, "topic " + topic + "'s message.timestamp.before.max.ms ("
                + before + ") and message.timestamp.after.max.ms (" + after + ")");
    }

    private static long longOf(Config config, String key, long absent) {
        ConfigEntry entry = config.get(key);
        return entry == null || entry.value() == null ? absent : Long.parseLong(entry.value());
    }

    /** The timestamps both windows take. */
    public TimestampWindow and(TimestampWindow other) {
        if (this.equals(ANY)) {
            return other;
        }
        if (other.equals(ANY)) {
            return this;
        }
        return new TimestampWindow(Math.min(beforeMaxMs, other.beforeMaxMs), Math.min(afterMaxMs, other.afterMaxMs),
                source + "; " + other.source);
    }

    /**
     * Whether a record stamped {@code timestampMs} is inside the window at {@code nowMs}, and will still be after
     * it has aged by {@code ageMarginMs} (it is written some time after it is checked: when it is released, at the
     * next commit), though never more than half the window's past side; the future side needs no margin, as a
     * record only grows older.
     */
    public boolean takes(long timestampMs, long nowMs, long ageMarginMs) {
        long age = nowMs - timestampMs; // negative for a future timestamp; a record's timestamp is never negative
        return age <= saturatedMinus(beforeMaxMs, Math.min(ageMarginMs, beforeMaxMs / 2)) && -age <= afterMaxMs;
    }

    private static long saturatedMinus(long limit, long margin) {
        return limit == Long.MAX_VALUE ? Long.MAX_VALUE : limit - margin;
    }
}
