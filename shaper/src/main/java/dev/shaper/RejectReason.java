package dev.shaper;

/**
 * Why a record went to the rejected topic. The name is written, as text, into the {@link ShaperHeaders#REASON}
 * header of the rejected record.
 */
public enum RejectReason {
    /** The key's queue already holds {@code shaper.shaping.max.queue} records. A retry may fit later. */
    QUEUE_FULL,
    /** The record would wait longer than {@code shaper.shaping.max.delay.ms} in its key's queue. */
    DELAY_EXCEEDED,
    /** The admission token bucket of the record's admission key has too few tokens. A retry may succeed later. */
    RATE_LIMITED,
    /** The record lacks the header {@code shaper.admission.key.header} names, or it is empty. Do not retry. */
    INVALID_ADMISSION_KEY,
    /** The record has no key; the leaky bucket is per key, so it cannot be shaped. Do not retry. */
    INVALID_KEY,
    /**
     * The {@code shaper.cost} header is not a whole number between 1 and the maximum, or exceeds the admission
     * burst of its key (no amount of waiting could admit it). Do not retry.
     */
    INVALID_COST,
    /**
     * The record is larger than a destination takes: the output topic (its {@code max.message.bytes} or the
     * producer's {@code max.request.size}, counting the shaper's headers) or, when it would have to wait, the
     * schedule store's changelog topic. The detail header names the limit. Do not retry.
     */
    RECORD_TOO_LARGE,
    /**
     * The record's timestamp lies further in the past or future than the output topic (or a changelog topic)
     * takes ({@code message.timestamp.before.max.ms}, {@code message.timestamp.after.max.ms}), on arrival or, for a
     * record that waited, on release. The detail names the window. Do not retry.
     */
    INVALID_TIMESTAMP,
    /** Any other record the shaper cannot handle; the detail header says why. Do not retry. */
    INVALID_RECORD,
    /**
     * The record could not leave by its {@code shaper.deadline.ms}: it would have been released later (rejected at
     * arrival), or it was still queued when its deadline passed. A retry needs a later deadline.
     */
    DEADLINE_EXCEEDED,
    /** The {@code shaper.on.limit} header is not exactly {@code queue} or {@code reject}, or appears twice. Do not retry. */
    INVALID_ON_LIMIT,
    /**
     * The {@code shaper.deadline.ms} header is not a whole number of epoch milliseconds in range (plain ASCII
     * digits), or appears twice. Do not retry.
     */
    INVALID_DEADLINE,
    /**
     * The input topic's partition count changed while the shaper ran: it takes no new records until its operator
     * has reset its state (its queues drain meanwhile). A retry succeeds once the shaper runs again; there is no
     * retry-after, since that is up to the operator.
     */
    INPUT_REPARTITIONED;

    /** True for rejections that waiting can cure; only these carry {@link ShaperHeaders#RETRY_AFTER_MS}. */
    public boolean isRetriable() {
        return this == QUEUE_FULL || this == DELAY_EXCEEDED || this == RATE_LIMITED;
    }
}
