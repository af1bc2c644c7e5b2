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

    static long read(Headers headers) throws InvalidCostException {
        Header header = headers.lastHeader(ShaperHeaders.COST);
        if (header == null) {
            return 1;
        }
        byte[] raw = header.value();
        if (raw == null || raw.length == 0) {
            throw new InvalidCostException(ShaperHeaders.COST + " is empty; expected a whole number from 1 to "
                    + ShaperHeaders.MAX_COST);
        }
        String text = new String(raw, StandardCharsets.UTF_8).trim();
        long cost;
        try {
            cost = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidCostException(ShaperHeaders.COST + " is \"" + abbreviate(text)
                    + "\"; expected a whole number from 1 to " + ShaperHeaders.MAX_COST);
        }
        if (cost < 1 || cost > ShaperHeaders.MAX_COST) {
            throw new InvalidCostException(ShaperHeaders.COST + " is " + cost + "; expected a whole number from 1 to "
                    + ShaperHeaders.MAX_COST);
        }
        return cost;
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
