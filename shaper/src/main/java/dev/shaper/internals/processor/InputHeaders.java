package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Removes the headers the shaper writes from an input record. A client could set them (or re-publish a rejected
 * record with its reason still on it); passed on, they would tell the consumers of the output topic something the
 * shaper never said. The shaper's input headers ({@link ShaperHeaders#COST}, the admission key) are kept.
 */
final class InputHeaders {

    private static final String PREFIX = "shaper.";
    private static final List<String> WRITTEN_BY_SHAPER = List.of(ShaperHeaders.QUEUED_MS, ShaperHeaders.RELEASED_MS,
            ShaperHeaders.REASON, ShaperHeaders.RETRY_AFTER_MS, ShaperHeaders.DETAIL, ShaperHeaders.SOURCE_TOPIC,
            ShaperHeaders.SOURCE_PARTITION, ShaperHeaders.SOURCE_OFFSET, ShaperHeaders.OMITTED);

    private InputHeaders() {
    }

    /** Removes the shaper's output headers from {@code headers}, which nearly never carry any. */
    static void stripShaperOutput(Headers headers) {
        for (Header header : headers) {
            if (header.key().startsWith(PREFIX) && WRITTEN_BY_SHAPER.contains(header.key())) {
                WRITTEN_BY_SHAPER.forEach(headers::remove);
                return;
            }
        }
    }
}
