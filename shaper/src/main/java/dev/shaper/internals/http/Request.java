package dev.shaper.internals.http;

import java.util.Locale;
import java.util.Map;

/**
 * A request as the endpoints see it: its method, its path still percent-encoded (no query), and its headers
 * (names lower case, the first value of each).
 */
record Request(String method, String rawPath, Map<String, String> headers) {

    /** The first value of header {@code name}, or null. */
    String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
