package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The checks every record passes before a bucket sees it: a key, and a usable cost. The record's headers lose
 * any the shaper writes itself ({@link InputHeaders}).
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
        try {
            return new CheckOutcome.Valid(CostHeader.read(record.headers()));
        } catch (CostHeader.InvalidCostException e) {
            return new Refusal(RejectReason.INVALID_COST, e.getMessage());
        }
    }
}
