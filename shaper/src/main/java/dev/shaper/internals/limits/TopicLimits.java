package dev.shaper.internals.limits;

/**
 * What each of the shaper's destinations takes, decided before a record is sent or stored, so that no record can
 * make a send fail: under exactly-once such a failure aborts the transaction, the task is restarted, and the same
 * record would fail it again.
 *
 * @param shaped        the largest record the output topic takes
 * @param rejected      the largest record the rejected topic takes
 * @param stored        the largest record the state stores' changelog topics take: one schedule segment, one key state
 * @param shapedTimes   the timestamps the output topic takes (the changelog topics take any: the shaper creates
 *                      them so, and widens older ones at start)
 * @param rejectedTimes the timestamps the rejected topic takes
 * @param shadow        the largest record the shadow topic takes (the producer's limit when there is none)
 * @param shadowTimes   the timestamps the shadow topic takes
 */
public record TopicLimits(SizeLimit shaped, SizeLimit rejected, SizeLimit stored, TimestampWindow shapedTimes,
                          TimestampWindow rejectedTimes, SizeLimit shadow, TimestampWindow shadowTimes) {

    /** Limits without a shadow topic: the producer's limit (here, the rejected topic's) and any timestamp. */
    public TopicLimits(SizeLimit shaped, SizeLimit rejected, SizeLimit stored, TimestampWindow shapedTimes,
                       TimestampWindow rejectedTimes) {
        this(shaped, rejected, stored, shapedTimes, rejectedTimes, rejected, TimestampWindow.ANY);
    }

    /** Kafka's default of the broker's {@code message.max.bytes}, which a topic without its own setting inherits. */
    public static final long BROKER_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588L;

    /**
     * Limits known without asking the brokers: the producer's size limit and the broker default for every topic,
     * and no timestamp limit. For tests and tools; the application reads the topics' real limits at start
     * ({@link TopicLimitsReader}).
     */
    public static TopicLimits assumed(int maxRequestSize) {
        SizeLimit producer = SizeLimit.producer(maxRequestSize);
        SizeLimit broker = new SizeLimit(BROKER_DEFAULT_MAX_MESSAGE_BYTES,
                "the broker's default message.max.bytes (" + BROKER_DEFAULT_MAX_MESSAGE_BYTES + ")");
        SizeLimit limit = producer.min(broker);
        return new TopicLimits(limit, limit, limit, TimestampWindow.ANY, TimestampWindow.ANY);
    }

    /** The same limits with these timestamp windows. */
    public TopicLimits withTimes(TimestampWindow shapedTimes, TimestampWindow rejectedTimes) {
        return new TopicLimits(shaped, rejected, stored, shapedTimes, rejectedTimes, shadow, shadowTimes);
    }

    @Override
    public String toString() {
        return "shaped " + shaped.bytes() + " bytes (" + shaped.source() + "), rejected " + rejected.bytes()
                + " bytes (" + rejected.source() + "), stored " + stored.bytes() + " bytes (" + stored.source()
                + "); shadow " + shadow.bytes() + " bytes (" + shadow.source() + "); timestamps shaped: "
                + shapedTimes.source() + ", rejected: " + rejectedTimes.source() + ", shadow: " + shadowTimes.source();
    }
}
