package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Turns a refused record into its rejected-topic form, by the dead-letter convention: the original key,
 * value, timestamp and headers, plus headers that say why and where it came from.
 */
final class Rejections {

    private Rejections() {
    }

    static Record<byte[], byte[]> reject(Record<byte[], byte[]> record, RejectReason reason, long retryAfterMs,
                                         String detail, Optional<RecordMetadata> source) {
        Headers headers = new RecordHeaders(record.headers().toArray());
        HeaderValues.set(headers, ShaperHeaders.REASON, reason.name());
        if (reason.isRetriable()) {
            HeaderValues.set(headers, ShaperHeaders.RETRY_AFTER_MS, Long.toString(retryAfterMs));
        } else {
            headers.remove(ShaperHeaders.RETRY_AFTER_MS);
        }
        HeaderValues.set(headers, ShaperHeaders.DETAIL, detail);
        source.ifPresent(meta -> {
            HeaderValues.set(headers, ShaperHeaders.SOURCE_TOPIC, meta.topic());
            HeaderValues.set(headers, ShaperHeaders.SOURCE_PARTITION, Integer.toString(meta.partition()));
            HeaderValues.set(headers, ShaperHeaders.SOURCE_OFFSET, Long.toString(meta.offset()));
        });
        return record.withHeaders(headers);
    }

    /** Sends the rejected form of {@code record} to the {@code rejectedChild} of {@code context}'s processor. */
    static void forward(ProcessorContext<byte[], byte[]> context, String rejectedChild, Record<byte[], byte[]> record,
                        RejectReason reason, long retryAfterMs, String detail) {
        context.forward(reject(record, reason, retryAfterMs, detail, context.recordMetadata()), rejectedChild);
    }
}
