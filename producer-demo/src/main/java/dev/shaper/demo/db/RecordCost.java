package dev.shaper.demo.db;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** A shaped record's cost in the units of the shaper's rates: what it charged the record, and what a write costs. */
public final class RecordCost {

    private RecordCost() {
    }

    /**
     * The record's {@link ShaperHeaders#COST} header, a whole number from 1 to {@link ShaperHeaders#MAX_COST}; 1
     * when it has none. A header that is not such a number counts as 1 too: the shaper rejects those records, so one
     * on the shaped topic did not pass through it, and it charged the record nothing to copy.
     */
    public static long of(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(ShaperHeaders.COST);
        if (header == null || header.value() == null) {
            return 1;
        }
        String text = new String(header.value(), StandardCharsets.US_ASCII);
        if (!text.matches("[0-9]{1,7}")) {
            return 1;
        }
        long cost = Long.parseLong(text);
        return cost >= 1 && cost <= ShaperHeaders.MAX_COST ? cost : 1;
    }
}
