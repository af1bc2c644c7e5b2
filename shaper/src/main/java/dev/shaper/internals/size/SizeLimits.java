package dev.shaper.internals.size;

/**
 * The record sizes each of the shaper's destinations takes: decided before a record is sent or stored, so that no
 * record can make a send fail (under exactly-once such a failure aborts the transaction, the task is restarted,
 * and the same record fails it again).
 *
 * @param shaped   what the output topic takes
 * @param rejected what the rejected topic takes
 * @param stored   what the state stores' changelog topics take: one schedule segment, one key state
 */
public record SizeLimits(SizeLimit shaped, SizeLimit rejected, SizeLimit stored) {

    /** Kafka's default of the broker's {@code message.max.bytes}, which a topic without its own setting inherits. */
    public static final long BROKER_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588L;

    /**
     * Limits known without asking the brokers: the producer's, and the broker default for every topic. For
     * tests and tools; the application reads the topics' real limits at start ({@link TopicSizeLimits}).
     */
    public static SizeLimits assumed(int maxRequestSize) {
        SizeLimit producer = SizeLimit.producer(maxRequestSize);
        SizeLimit broker = new SizeLimit(BROKER_DEFAULT_MAX_MESSAGE_BYTES,
                "the broker's default message.max.bytes (" + BROKER_DEFAULT_MAX_MESSAGE_BYTES + ")");
        SizeLimit limit = producer.min(broker);
        return new SizeLimits(limit, limit, limit);
    }

    @Override
    public String toString() {
        return "shaped " + shaped.bytes() + " bytes (" + shaped.source() + "), rejected " + rejected.bytes()
                + " bytes (" + rejected.source() + "), stored " + stored.bytes() + " bytes (" + stored.source() + ")";
    }
}
