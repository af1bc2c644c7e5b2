package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import dev.shaper.internals.limits.RecordSize;
import dev.shaper.internals.limits.SizeLimit;
import dev.shaper.internals.limits.TimestampWindow;
import dev.shaper.internals.metrics.ShaperMetrics;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Reports what rules in shadow would have done with records that passed at once: counted in the metrics with
 * {@code mode="shadow"}, and, when {@code shaper.shadow.topic} is set, one record per would-be wait or rejection on
 * that topic: the record's key, no value, the decision in headers (see {@link ShaperHeaders#SHADOW_DECISION}).
 *
 * <p>A report fits the shadow topic, so that it cannot fail the send (and with it the task): a key too large for it
 * is left out ({@link ShaperHeaders#OMITTED}), then, for a topic that takes less than about a kilobyte, the detail and
 * the source; a timestamp it would refuse becomes the report's time.
 */
final class ShadowReports {

    /** The processor's child that leads to the shadow topic, or null for none. */
    private final String shadowChild;
    private final SizeLimit limit;
    private final TimestampWindow times;
    private final ShaperMetrics metrics;

    ShadowReports(String shadowChild, SizeLimit limit, TimestampWindow times, ShaperMetrics metrics) {
        this.shadowChild = shadowChild;
        this.limit = limit;
        this.times = times;
        this.metrics = metrics;
    }

    /** A record's key has its rule in shadow: it leaves without the rule's limits, whatever they decide. */
    void decided() {
        metrics.shadowed();
    }

    /** A rule in shadow would have rejected {@code record}. */
    void wouldReject(ProcessorContext<byte[], byte[]> context, Record<byte[], byte[]> record, Refusal refusal) {
        metrics.rejectedInShadow(refusal.reason());
        if (shadowChild == null) {
            return;
        }
        Headers headers = new RecordHeaders();
        HeaderValues.set(headers, ShaperHeaders.SHADOW_DECISION, ShaperHeaders.SHADOW_REJECT);
        Rejections.setReason(headers, refusal.reason(), refusal.retryAfterMs(), Rejections.cut(refusal.detail()));
        send(context, record, headers);
    }

    /** A rule in shadow would have queued {@code record} for {@code waitMs}. */
    void wouldQueue(ProcessorContext<byte[], byte[]> context, Record<byte[], byte[]> record, long waitMs) {
        metrics.delayedInShadow(waitMs);
        if (shadowChild == null) {
            return;
        }
        Headers headers = new RecordHeaders();
        HeaderValues.set(headers, ShaperHeaders.SHADOW_DECISION, ShaperHeaders.SHADOW_QUEUE);
        HeaderValues.set(headers, ShaperHeaders.SHADOW_DELAY_MS, Long.toString(waitMs));
        send(context, record, headers);
    }

    private void send(ProcessorContext<byte[], byte[]> context, Record<byte[], byte[]> record, Headers headers) {
        context.forward(report(record, headers, Rejections.sourceOf(context), context.currentSystemTimeMs()),
                shadowChild);
    }

    /**
     * The report of {@code record} with the decision's {@code headers}, cut down until it fits the shadow topic.
     *
     * @param source where the record was read (see {@link Rejections#sourceOf})
     */
    Record<byte[], byte[]> report(Record<byte[], byte[]> record, Headers headers, Optional<RecordMetadata> source,
                                  long wallNowMs) {
        Rejections.setSource(headers, source);
        long timestamp = times.takes(record.timestamp(), wallNowMs, OutputChecks.SEND_MARGIN_MS)
                ? record.timestamp() : wallNowMs;
        byte[] key = record.key();
        if (limit.fits(RecordSize.of(key, null, headers))) {
            return new Record<>(key, null, timestamp, headers);
        }
        HeaderValues.set(headers, ShaperHeaders.OMITTED, "key");
        if (!limit.fits(RecordSize.of(null, null, headers))) {
            // A topic that takes less than a kilobyte or so: the decision alone (its reason, delay, retry-after)
            headers.remove(ShaperHeaders.DETAIL);
            headers.remove(ShaperHeaders.SOURCE_TOPIC);
            headers.remove(ShaperHeaders.SOURCE_PARTITION);
            headers.remove(ShaperHeaders.SOURCE_OFFSET);
            HeaderValues.set(headers, ShaperHeaders.OMITTED, "key,detail,source");
        }
        return new Record<>(null, null, timestamp, headers);
    }
}
