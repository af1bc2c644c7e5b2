package dev.shaper.internals.processor;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;

/** Sets the shaper's headers on shaped and rejected records. */
final class HeaderValues {

    private HeaderValues() {
    }

    /** Replaces any header of that name, so a record that passes two shapers carries one value. */
    static void set(Headers headers, String name, String value) {
        set(headers, name, value.getBytes(StandardCharsets.UTF_8));
    }

    static void set(Headers headers, String name, byte[] value) {
        removeIfPresent(headers, name);
        headers.add(name, value);
    }

    /**
     * Like {@link #set}, or, for a null {@code value}, only removes the header: a header of ours that this
     * shaper does not write must not pass on an upstream stage's value as its own.
     */
    static void setOrRemove(Headers headers, String name, byte[] value) {
        removeIfPresent(headers, name);
        if (value != null) {
            headers.add(name, value);
        }
    }

    /**
     * Looks before it removes: {@code remove} walks the headers with a new iterator for every record, while a
     * record rarely carries our headers on arrival; {@code lastHeader} walks them without allocating.
     */
    private static void removeIfPresent(Headers headers, String name) {
        if (headers.lastHeader(name) != null) {
            headers.remove(name);
        }
    }
}
