package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The checks every record passes before a bucket sees it: a key, a usable cost, and readable per-record choices
 * ({@code shaper.on.limit}, {@code shaper.deadline.ms}). The record's headers lose any the shaper writes itself
 * ({@link InputHeaders}).
 */
final class InputChecks {

    private InputChecks() {
    }

    static CheckOutcome check(Record<byte[], byte[]> record) {
        InputHeaders.stripShaperOutput(record.headers());
        if (record.key() == null) {
            return new Refusal(RejectReason.INVALID_KEY,
                    "record has no key; the leaky bucket is per record key");
        }
        long cost;
        try {
            cost = CostHeader.read(record.headers());
        } catch (CostHeader.InvalidCostException e) {
            return new Refusal(RejectReason.INVALID_COST, e.getMessage());
        }
        boolean rejectsWaiting;
        try {
            rejectsWaiting = OnLimitHeader.rejectsWaiting(record.headers());
        } catch (InvalidHeaderException e) {
            return new Refusal(RejectReason.INVALID_ON_LIMIT, e.getMessage());
        }
        try {
            return new CheckOutcome.Valid(cost, rejectsWaiting, DeadlineHeader.read(record.headers()));
        } catch (InvalidHeaderException e) {
            return new Refusal(RejectReason.INVALID_DEADLINE, e.getMessage());
        }
    }
}
