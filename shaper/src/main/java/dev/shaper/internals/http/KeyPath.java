package dev.shaper.internals.http;

import java.io.ByteArrayOutputStream;

/**
 * The record key in a request path such as {@code /buckets/user%2F42}: the path segment after the prefix,
 * percent-decoded to bytes exactly as RFC 3986 defines it ({@code +} stays a plus: this is a path, not a
 * form). The key's bytes are the record key's bytes, so any key, UTF-8 or binary, can be asked for; the empty
 * key, which the shaper shapes like any other, is the empty segment ({@code /buckets/}).
 */
final class KeyPath {

    private KeyPath() {
    }

    /** The key bytes of a raw (still encoded) path segment; fails with a message for the client. */
    static byte[] decode(String rawSegment) {
        if (rawSegment.indexOf('/') >= 0) {
            throw new IllegalArgumentException("the key contains '/': encode it as %2F");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(rawSegment.length());
        for (int i = 0; i < rawSegment.length(); i++) {
            char c = rawSegment.charAt(i);
            if (c == '%') {
                if (i + 2 >= rawSegment.length() || hex(rawSegment.charAt(i + 1)) < 0
                        || hex(rawSegment.charAt(i + 2)) < 0) {
                    throw new IllegalArgumentException("malformed percent-encoding at position " + i
                            + " of the key: '%' must be followed by two hex digits");
                }
                out.write(hex(rawSegment.charAt(i + 1)) * 16 + hex(rawSegment.charAt(i + 2)));
                i += 2;
            } else if (c > 0x7e || c < 0x21) {
                throw new IllegalArgumentException("the key has a character that must be percent-encoded at"
                        + " position " + i);
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }

    /**
     * The path segment of {@code key}, every byte but RFC 3986's unreserved characters percent-encoded: a
     * segment that {@link java.net.URI} accepts, whichever characters the request that asked for it used.
     */
    static String encode(byte[] key) {
        StringBuilder out = new StringBuilder(key.length * 3);
        for (byte b : key) {
            int c = b & 0xff;
            if (c < 0x80 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == '~')) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
