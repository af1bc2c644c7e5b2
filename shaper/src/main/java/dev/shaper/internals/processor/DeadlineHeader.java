package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Reads the optional {@link ShaperHeaders#DEADLINE_MS} header: epoch milliseconds, in plain ASCII digits. */
final class DeadlineHeader {

    /** No deadline. */
    static final long NONE = Long.MAX_VALUE;

    private DeadlineHeader() {
    }

    /** The record's deadline, {@link #NONE} without the header. */
    static long read(Headers headers) throws InvalidHeaderException {
        Header header = headers.lastHeader(ShaperHeaders.DEADLINE_MS); // walks without allocating
        if (header == null) {
            return NONE;
        }
        String expected = "a whole number of epoch milliseconds from " + ShaperHeaders.MIN_DEADLINE_MS + " to "
                + ShaperHeaders.MAX_DEADLINE_MS;
        HeaderCount.atMostOne(headers, ShaperHeaders.DEADLINE_MS, expected);
        byte[] raw = header.value();
        if (raw == null || raw.length == 0) {
            throw new InvalidHeaderException(ShaperHeaders.DEADLINE_MS + " is empty; expected " + expected);
        }
        long deadline = 0;
        for (byte b : raw) {
            if (b < '0' || b > '9') {
                throw new InvalidHeaderException(ShaperHeaders.DEADLINE_MS + " is " + HeaderCount.shown(raw)
                        + "; expected " + expected + " in ASCII digits, without sign, spaces or a fraction");
            }
            // Saturates past the maximum: no overflow on long inputs.
            deadline = Math.min(deadline * 10 + (b - '0'), ShaperHeaders.MAX_DEADLINE_MS + 1);
        }
        if (deadline < ShaperHeaders.MIN_DEADLINE_MS) {
            throw new InvalidHeaderException(ShaperHeaders.DEADLINE_MS + " is " + HeaderCount.shown(raw)
                    + ", before 2001-09-09: seconds or a duration rather than a time?; expected " + expected);
        }
        if (deadline > ShaperHeaders.MAX_DEADLINE_MS) {
            throw new InvalidHeaderException(ShaperHeaders.DEADLINE_MS + " is " + HeaderCount.shown(raw)
                    + ", after the year 9999; expected " + expected);
        }
        return deadline;
    }
}
