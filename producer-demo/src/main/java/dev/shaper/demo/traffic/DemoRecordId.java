package dev.shaper.demo.traffic;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The id every generated record carries in its value, so that each record can be accounted for in the
 * shaped topic, the rejected topic and the database.
 *
 * <p>Value format (UTF-8): {@code <key>:<seq>|<run>|} followed by {@code '.'} filler up to the record size.
 * {@code <key>:<seq>} is the shaper tests' record id (key, then the record's position among its key's
 * records from 0), so their verifiers read these values too; {@code <run>} tells apart the runs of the
 * generator, so that two runs writing to the same table never share an id. Keys must not contain
 * {@code '|'}; the run must not contain {@code '|'} or {@code ':'}.
 *
 * @param run the generator run this record belongs to
 * @param key the record key
 * @param seq the record's position among the records of its key in this run, from 0
 */
public record DemoRecordId(String run, String key, long seq) {

    private static final char SEPARATOR = '|';
    private static final byte FILL = '.';

    public DemoRecordId {
        if (run == null || run.isEmpty() || run.indexOf(SEPARATOR) >= 0 || run.indexOf(':') >= 0) {
            throw new IllegalArgumentException("run must be non-empty and free of '|' and ':': " + run);
        }
        if (key == null || key.indexOf(SEPARATOR) >= 0) {
            throw new IllegalArgumentException("key must be non-null and free of '|': " + key);
        }
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0, got " + seq);
        }
    }

    /** The id within its run, {@code <key>:<seq>}. */
    public String recordId() {
        return key + ":" + seq;
    }

    /** The value bytes, padded with filler to {@code size} bytes (an id longer than that is written whole). */
    public byte[] toValue(int size) {
        byte[] id = (recordId() + SEPARATOR + run + SEPARATOR).getBytes(StandardCharsets.UTF_8);
        if (id.length >= size) {
            return id;
        }
        byte[] value = Arrays.copyOf(id, size);
        Arrays.fill(value, id.length, size, FILL);
        return value;
    }

    /** Reads the id at the front of a value written by {@link #toValue}. */
    public static DemoRecordId parse(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("record has no value, hence no id");
        }
        String text = new String(value, StandardCharsets.UTF_8);
        int idEnd = text.indexOf(SEPARATOR);
        int runEnd = idEnd < 0 ? -1 : text.indexOf(SEPARATOR, idEnd + 1);
        int colon = idEnd < 0 ? -1 : text.lastIndexOf(':', idEnd);
        if (runEnd < 0 || colon < 0) {
            throw new IllegalArgumentException("not a demo record id (expected <key>:<seq>|<run>|): "
                    + abbreviate(text));
        }
        try {
            return new DemoRecordId(text.substring(idEnd + 1, runEnd), text.substring(0, colon),
                    Long.parseLong(text.substring(colon + 1, idEnd)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a demo record id (expected <key>:<seq>|<run>|): "
                    + abbreviate(text), e);
        }
    }

    private static String abbreviate(String text) {
        return text.length() <= 60 ? text : text.substring(0, 60) + "...";
    }

    @Override
    public String toString() {
        return run + "/" + recordId();
    }
}
