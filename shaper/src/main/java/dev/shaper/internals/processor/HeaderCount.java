package dev.shaper.internals.processor;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** What the readers of the per-record headers share: one header per name, and how a bad value is quoted. */
final class HeaderCount {

    private HeaderCount() {
    }

    /** Refuses a second header of {@code name} (called only when there is one: the walk allocates an iterator). */
    static void atMostOne(Headers headers, String name, String expected) throws InvalidHeaderException {
        int count = 0;
        for (Header ignored : headers.headers(name)) {
            count++;
        }
        if (count > 1) {
            throw new InvalidHeaderException(count + " " + name + " headers; expected at most one, " + expected);
        }
    }

    /** The value as the detail quotes it: in quotes, cut at 40 characters; "null" for a header without a value. */
    static String shown(byte[] raw) {
        if (raw == null) {
            return "null";
        }
        String text = new String(raw, StandardCharsets.UTF_8);
        return "\"" + (text.length() <= 40 ? text : text.substring(0, 40) + "...") + "\"";
    }
}
