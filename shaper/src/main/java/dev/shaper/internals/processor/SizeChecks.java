package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import dev.shaper.internals.size.RecordSize;
import dev.shaper.internals.size.SizeLimits;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Whether a record fits where the shaper sends or keeps it, decided before the send: under exactly-once a send
 * that the producer or the broker refuses aborts the transaction, and the same record would fail the task again
 * after every restart.
 */
final class SizeChecks {

    /** The headers the shaper adds to a shaped record, at their widest (a long's digits each). */
    static final long SHAPER_HEADER_BYTES = RecordSize.header(ShaperHeaders.QUEUED_MS.length(), 20)
            + RecordSize.header(ShaperHeaders.RELEASED_MS.length(), 20);
    /** A key state's stored value, with room to spare: its encoding takes 37 bytes. */
    private static final int KEY_STATE_VALUE_BYTES = 64;

    private final SizeLimits limits;

    SizeChecks(SizeLimits limits) {
        this.limits = limits;
    }

    /**
     * Why {@code record} cannot be shaped: the output topic would not take it with the shaper's headers, or its
     * key is too long to keep a state for; null if it can. The record's headers must not carry the shaper's own.
     */
    String whyNotShapeable(Record<byte[], byte[]> record) {
        long shaped = RecordSize.of(record.key(), record.value(), record.headers()) + SHAPER_HEADER_BYTES;
        if (!limits.shaped().fits(shaped)) {
            return "the record would take up to " + shaped + " bytes on the output topic with the shaper's headers,"
                    + " more than the " + limits.shaped().bytes() + " it takes (" + limits.shaped().source() + ")";
        }
        long keyState = RecordSize.of(1L + record.key().length, KEY_STATE_VALUE_BYTES, 0);
        if (!limits.stored().fits(keyState)) {
            return "the key (" + record.key().length + " bytes) is too long to keep its state: the key-state"
                    + " changelog takes records of at most " + limits.stored().bytes() + " bytes ("
                    + limits.stored().source() + ")";
        }
        return null;
    }

    /** Why a record whose queued form is {@code queuedBytes} long cannot wait in the schedule store. */
    String whyNotQueueable(int queuedBytes) {
        return "the record would have to wait, and its queued form (" + queuedBytes + " bytes with its key) is more"
                + " than the schedule store's changelog takes: " + limits.stored().bytes() + " bytes ("
                + limits.stored().source() + ")";
    }

    /** Whether a released record still fits the output topic (the limits may have changed since it was queued). */
    boolean fitsOutput(Record<byte[], byte[]> record) {
        return limits.shaped().fits(RecordSize.of(record.key(), record.value(), record.headers()));
    }

    /** The output topic's limit and its source, for a detail. */
    String outputLimit() {
        return limits.shaped().bytes() + " bytes (" + limits.shaped().source() + ")";
    }
}
