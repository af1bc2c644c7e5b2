package dev.shaper.internals.processor;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Reads the optional {@link ShaperHeaders#COST} header: a whole number from 1 to {@link ShaperHeaders#MAX_COST}. */
final class CostHeader {

    /** A cost header that is not a whole number in range; the message says what was found. */
    static final class InvalidCostException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidCostException(String message) {
            super(message);
        }
    }

    private CostHeader() {
    }

    /**
     * The cost the record declares, 1 without the header. Strict, so that a cost means one thing to every client:
     * exactly one header, plain ASCII digits (no sign, no spaces, no other scripts' digits).
     */
    static long read(Headers headers) throws InvalidCostException {
        Header header = headers.lastHeader(ShaperHeaders.COST); // walks without allocating, unlike headers(name)
        if (header == null) {
            return 1;
        }
        int count = 0;
        for (Header ignored : headers.headers(ShaperHeaders.COST)) {
            count++;
        }
        if (count > 1) {
            throw new InvalidCostException(count + " " + ShaperHeaders.COST + " headers; expected at most one, a"
                    + " whole number from 1 to " + ShaperHeaders.MAX_COST);
        }
        byte[] raw = header.value();
        if (raw == null || raw.length == 0) {
            throw new InvalidCostException(ShaperHeaders.COST + " is empty; expected a whole number from 1 to "
                    + ShaperHeaders.MAX_COST);
        }
        String text = new String(raw, StandardCharsets.UTF_8);
        long cost = 0;
        for (byte b : raw) {
            if (b < '0' || b > '9') {
                throw new InvalidCostException(ShaperHeaders.COST + " is \"" + abbreviate(text) + "\"; expected a"
                        + " whole number from 1 to " + ShaperHeaders.MAX_COST + " in ASCII digits, without sign or"
                        + " spaces");
            }
            cost = Math.min(cost * 10 + (b - '0'), ShaperHeaders.MAX_COST + 1); // no overflow on long inputs
        }
        if (cost < 1 || cost > ShaperHeaders.MAX_COST) {
            throw new InvalidCostException(ShaperHeaders.COST + " is " + abbreviate(text) + "; expected a whole"
                    + " number from 1 to " + ShaperHeaders.MAX_COST);
        }
        return cost;
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
