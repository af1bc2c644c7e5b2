package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.limits.RecordSize;
import dev.shaper.internals.limits.SizeLimit;
import dev.shaper.internals.limits.TimestampWindow;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Turns a refused record into its rejected-topic form, by the dead-letter convention: the original key,
 * value, timestamp and headers, plus headers that say why and where it came from.
 *
 * <p>The form always fits the rejected topic, so that a rejection can never fail the send (and with it the
 * task, on every restart): what does not fit is left out, first the value, then the key, then the record's
 * own headers, and {@link ShaperHeaders#OMITTED} and the detail say what and why.
 */
final class Rejections {

    /** The headers the shaper adds to a rejected record; all others are the record's own. */
    private static final Set<String> REJECTION_HEADERS = Set.of(ShaperHeaders.REASON, ShaperHeaders.RETRY_AFTER_MS,
            ShaperHeaders.DETAIL, ShaperHeaders.SOURCE_TOPIC, ShaperHeaders.SOURCE_PARTITION,
            ShaperHeaders.SOURCE_OFFSET, ShaperHeaders.OMITTED);
    /** A detail longer than this is cut (before any note on what was left out): it may quote input of any size. */
    static final int MAX_DETAIL_CHARS = 1_000;

    private final String rejectedChild;
    private final SizeLimit limit;
    private final TimestampWindow times;

    /**
     * @param rejectedChild the processor's child that leads to the rejected topic
     * @param limit         the largest record the rejected topic takes
     * @param times         the timestamps it takes
     */
    Rejections(String rejectedChild, SizeLimit limit, TimestampWindow times) {
        this.rejectedChild = rejectedChild;
        this.limit = limit;
        this.times = times;
    }

    /** Sends the rejected form of {@code record} to the rejected topic, from {@code context}'s processor. */
    void forward(ProcessorContext<byte[], byte[]> context, Record<byte[], byte[]> record, RejectReason reason,
                 long retryAfterMs, String detail) {
        context.forward(reject(record, reason, retryAfterMs, detail, sourceOf(context),
                context.currentSystemTimeMs()), rejectedChild);
    }

    /** Where the record {@code context} processes was read; none in a punctuation (no topic, offset -1). */
    static Optional<RecordMetadata> sourceOf(ProcessorContext<?, ?> context) {
        return context.recordMetadata().filter(m -> m.topic() != null && m.offset() >= 0);
    }

    /** {@code detail} cut to {@link #MAX_DETAIL_CHARS}: it may quote input of any size. */
    static String cut(String detail) {
        return detail.length() <= MAX_DETAIL_CHARS ? detail : detail.substring(0, MAX_DETAIL_CHARS) + "...";
    }

    /** Sets why a record is (or would be) rejected: its reason, the retry-after where waiting can cure it, the detail. */
    static void setReason(Headers headers, RejectReason reason, long retryAfterMs, String detail) {
        HeaderValues.set(headers, ShaperHeaders.REASON, reason.name());
        if (reason.isRetriable()) {
            HeaderValues.set(headers, ShaperHeaders.RETRY_AFTER_MS, Long.toString(retryAfterMs));
        }
        HeaderValues.set(headers, ShaperHeaders.DETAIL, detail);
    }

    /** Sets where the record was read from, if known. */
    static void setSource(Headers headers, Optional<RecordMetadata> source) {
        source.ifPresent(meta -> {
            HeaderValues.set(headers, ShaperHeaders.SOURCE_TOPIC, meta.topic());
            HeaderValues.set(headers, ShaperHeaders.SOURCE_PARTITION, Integer.toString(meta.partition()));
            HeaderValues.set(headers, ShaperHeaders.SOURCE_OFFSET, Long.toString(meta.offset()));
        });
    }

    /**
     * The rejected form of {@code record} at {@code wallNowMs}, cut down until it fits the rejected topic, and
     * stamped with {@code wallNowMs} instead of its own timestamp if the rejected topic would refuse that.
     */
    Record<byte[], byte[]> reject(Record<byte[], byte[]> record, RejectReason reason, long retryAfterMs,
                                  String fullDetail, Optional<RecordMetadata> source, long wallNowMs) {
        String detail = cut(fullDetail);
        if (!times.takes(record.timestamp(), wallNowMs, OutputChecks.SEND_MARGIN_MS)) {
            detail += "; stamped with the time of the rejection, as the rejected topic would refuse the record's own"
                    + " timestamp " + record.timestamp() + " (" + times.source() + ")";
            record = record.withTimestamp(wallNowMs);
        }
        Headers headers = withReason(record.headers(), reason, retryAfterMs, detail, source);
        long whole = RecordSize.of(record.key(), record.value(), headers);
        if (limit.fits(whole)) {
            return record.withHeaders(headers);
        }
        // Each step leaves out one more part; the detail says how large the whole would have been and why.
        String why = "; the rejected topic takes at most " + limit.bytes() + " bytes (" + limit.source()
                + ") and the whole rejected record would take up to " + whole;
        int valueBytes = record.value() == null ? 0 : record.value().length;
        String withoutValue = detail + why + ", so its value (" + valueBytes + " bytes) is left out";
        headers = withReason(record.headers(), reason, retryAfterMs, withoutValue, source);
        HeaderValues.set(headers, ShaperHeaders.OMITTED, "value");
        if (limit.fits(RecordSize.of(record.key(), null, headers))) {
            return record.withValue((byte[]) null).withHeaders(headers);
        }
        int keyBytes = record.key() == null ? 0 : record.key().length;
        String withoutKey = detail + why + ", so its value (" + valueBytes + " bytes) and key (" + keyBytes
                + " bytes) are left out";
        headers = withReason(record.headers(), reason, retryAfterMs, withoutKey, source);
        HeaderValues.set(headers, ShaperHeaders.OMITTED, "value,key");
        if (limit.fits(RecordSize.of(null, null, headers))) {
            return record.withKey((byte[]) null).withValue((byte[]) null).withHeaders(headers);
        }
        String bare = detail + why + ", so its value (" + valueBytes + " bytes), key (" + keyBytes
                + " bytes) and headers are left out";
        headers = withReason(new RecordHeaders(), reason, retryAfterMs, bare, source);
        HeaderValues.set(headers, ShaperHeaders.OMITTED, "value,key,headers");
        return record.withKey((byte[]) null).withValue((byte[]) null).withHeaders(headers);
    }

    private static Headers withReason(Headers original, RejectReason reason, long retryAfterMs, String detail,
                                      Optional<RecordMetadata> source) {
        Headers headers = new RecordHeaders();
        for (Header header : original) {
            if (!REJECTION_HEADERS.contains(header.key())) {
                headers.add(header);
            }
        }
        setReason(headers, reason, retryAfterMs, detail);
        setSource(headers, source);
        return headers;
    }
}
