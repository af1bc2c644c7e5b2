package dev.shaper.testsupport;

/**
 * One record read back from the shaper's output or rejected topic.
 *
 * @param topic        which of the two topics it was read from
 * @param key          the record key (UTF-8)
 * @param id           the id parsed from the value, or null if the value holds none ({@link #malformed})
 * @param arrivalNanos {@link System#nanoTime()} when the consumer poll that returned it came back
 * @param appendedAtMs when the broker appended it to the topic, if the topic records that
 *                     ({@code message.timestamp.type=LogAppendTime}); null otherwise
 * @param releasedAtMs the {@code shaper.released.ms} header: when the shaper released it; null if absent
 * @param queuedMs     the {@code shaper.queued.ms} header, or null if absent or not a number
 * @param reason       the {@code shaper.reason} header, or null if absent
 * @param retryAfterMs the {@code shaper.retry.after.ms} header, or null if absent or not a number
 * @param malformed    why the value has no id, or null
 */
public record CollectedRecord(Topic topic, String key, RecordId id, long arrivalNanos, Long appendedAtMs,
                              Long releasedAtMs, Long queuedMs, String reason, Long retryAfterMs,
                              String malformed) {

    /** The topic a record came from. */
    public enum Topic { OUTPUT, REJECTED }

    public boolean isOutput() {
        return topic == Topic.OUTPUT;
    }
}
