package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Reads the optional {@link ShaperHeaders#ON_LIMIT} header: {@code queue} or {@code reject}. */
final class OnLimitHeader {

    private static final byte[] QUEUE = ShaperHeaders.ON_LIMIT_QUEUE.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REJECT = ShaperHeaders.ON_LIMIT_REJECT.getBytes(StandardCharsets.US_ASCII);

    private OnLimitHeader() {
    }

    /**
     * Whether a record that would have to wait is rejected instead; false without the header. Strict, so that the
     * choice means one thing to every client: exactly one header, exactly one of the two words (no case, no spaces).
     */
    static boolean rejectsWaiting(Headers headers) throws InvalidHeaderException {
        Header header = headers.lastHeader(ShaperHeaders.ON_LIMIT); // walks without allocating
        if (header == null) {
            return false;
        }
        HeaderCount.atMostOne(headers, ShaperHeaders.ON_LIMIT, "queue or reject");
        byte[] raw = header.value();
        if (Arrays.equals(raw, REJECT)) {
            return true;
        }
        if (Arrays.equals(raw, QUEUE)) {
            return false;
        }
        throw new InvalidHeaderException(ShaperHeaders.ON_LIMIT + " is " + HeaderCount.shown(raw)
                + "; expected queue or reject, in lower case");
    }
}
