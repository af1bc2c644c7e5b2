package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.limits.RecordSize;
import dev.shaper.internals.limits.TopicLimits;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Whether a record fits where the shaper sends or keeps it, its size and its timestamp, decided before the send:
 * under exactly-once a send that the producer or the broker refuses aborts the transaction, and the same record
 * would fail the task again after every restart.
 */
final class OutputChecks {

    /** The headers the shaper adds to a shaped record, at their widest (a long's digits each). */
    static final long SHAPER_HEADER_BYTES = RecordSize.header(ShaperHeaders.QUEUED_MS.length(), 20)
            + RecordSize.header(ShaperHeaders.RELEASED_MS.length(), 20);
    /**
     * How far inside a topic's timestamp window a record must be on arrival: it is written later, at the next
     * commit (the changelogs) or when it is released.
     */
    static final long TIMESTAMP_MARGIN_MS = 60_000;
    /** The same for a record sent now: the broker checks it against its own clock, after linger and the commit. */
    static final long SEND_MARGIN_MS = 5_000;
    /** A key state's stored value, with room to spare: its encoding takes 37 bytes. */
    private static final int KEY_STATE_VALUE_BYTES = 64;

    private final TopicLimits limits;
    /** Records queued from this time on were checked against these same limits on arrival. */
    private final long checkedSinceWallMs;

    /** @param nowWallMs the wall-clock time now: records queued since are checked on arrival by this object */
    OutputChecks(TopicLimits limits, long nowWallMs) {
        this.limits = limits;
        this.checkedSinceWallMs = nowWallMs;
    }

    /**
     * Why {@code record}, arriving at {@code wallNowMs}, cannot be shaped: the output topic would not take it with
     * the shaper's headers or not with its timestamp, or its key is too long to keep a state for; null if it can.
     * The record's headers must not carry the shaper's own.
     */
    Refusal whyNotShapeable(Record<byte[], byte[]> record, long wallNowMs) {
        long shaped = RecordSize.of(record.key(), record.value(), record.headers()) + SHAPER_HEADER_BYTES;
        if (!limits.shaped().fits(shaped)) {
            return tooLarge("the record would take up to " + shaped + " bytes on the output topic with the shaper's"
                    + " headers, more than the " + limits.shaped().bytes() + " it takes (" + limits.shaped().source()
                    + ")");
        }
        long keyState = RecordSize.of(1L + record.key().length, KEY_STATE_VALUE_BYTES, 0);
        if (!limits.stored().fits(keyState)) {
            return tooLarge("the key (" + record.key().length + " bytes) is too long to keep its state: the key-state"
                    + " changelog takes records of at most " + limits.stored().bytes() + " bytes ("
                    + limits.stored().source() + ")");
        }
        if (!limits.shapedTimes().takes(record.timestamp(), wallNowMs, TIMESTAMP_MARGIN_MS)) {
            return new Refusal(RejectReason.INVALID_TIMESTAMP, "the record's timestamp "
                    + record.timestamp() + " is " + (wallNowMs - record.timestamp()) + " ms before the time of its"
                    + " arrival (" + wallNowMs + "), outside what the output topic takes (with a margin of up to a"
                    + " minute for its age by the time it is sent): " + limits.shapedTimes().source());
        }
        return null;
    }

    /** Why a record whose queued form is {@code queuedBytes} long cannot wait in the schedule store. */
    Refusal whyNotQueueable(long queuedBytes) {
        return tooLarge("the record would have to wait, and its queued form (" + queuedBytes + " bytes with its key)"
                + " is more than the schedule store's changelog takes: " + limits.stored().bytes() + " bytes ("
                + limits.stored().source() + ")");
    }

    /**
     * Why a record queued at {@code enqueuedWallMs} cannot be released at {@code wallNowMs}: its timestamp has grown
     * too old for the output topic meanwhile, or it was queued under other limits (before a restart with other
     * settings, or on another instance) and does not fit these; null if it can.
     */
    Refusal whyNotReleasable(Record<byte[], byte[]> record, long wallNowMs, long enqueuedWallMs) {
        long waitedMs = wallNowMs - enqueuedWallMs;
        boolean queuedUnderOtherLimits = enqueuedWallMs < checkedSinceWallMs;
        if (queuedUnderOtherLimits
                && !limits.shaped().fits(RecordSize.of(record.key(), record.value(), record.headers()))) {
            return tooLarge("the record waited " + waitedMs + " ms, and on release it no longer fits the output topic,"
                    + " which now takes " + limits.shaped().bytes() + " bytes (" + limits.shaped().source() + ")");
        }
        if (!limits.shapedTimes().takes(record.timestamp(), wallNowMs, SEND_MARGIN_MS)) {
            return new Refusal(RejectReason.INVALID_TIMESTAMP, "the record waited " + waitedMs
                    + " ms, and on release its timestamp " + record.timestamp() + " is outside the window the"
                    + " output topic takes: " + limits.shapedTimes().source());
        }
        return null;
    }

    private static Refusal tooLarge(String detail) {
        return new Refusal(RejectReason.RECORD_TOO_LARGE, detail);
    }
}
