package dev.shaper.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The unique id that every test record carries in its value, so that a verifier can account for each input
 * record in the shaper's output and rejected topics.
 *
 * <p>Format: the record value is UTF-8 text {@code <key>:<seq>}, where {@code key} is the record key and
 * {@code seq} is a decimal sequence number that starts at 0 and grows by one per record of that key in
 * production order. A value may be padded to a fixed size: the id is then followed by {@code '|'} and filler
 * characters, which {@link #parse} ignores. Keys must not contain {@code '|'}; they may contain {@code ':'}
 * (the sequence number follows the last one).
 *
 * @param key the record key
 * @param seq the record's position among the records of its key, from 0
 */
public record RecordId(String key, long seq) implements Comparable<RecordId> {

    private static final byte PAD_SEPARATOR = '|';
    private static final byte PAD_FILL = '.';

    public RecordId {
        if (key == null || key.indexOf('|') >= 0) {
            throw new IllegalArgumentException("key must be non-null and free of '|': " + key);
        }
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0, got " + seq);
        }
    }

    /** The value bytes of this id, unpadded. */
    public byte[] toValue() {
        return toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The value bytes of this id, padded to {@code size} bytes when the id is shorter (a fixed-size payload
     * with the id in front); an id that needs more than {@code size} bytes is written whole.
     */
    public byte[] toValue(int size) {
        byte[] id = toValue();
        if (id.length + 1 > size) {
            return id;
        }
        byte[] value = new byte[size];
        Arrays.fill(value, PAD_FILL);
        System.arraycopy(id, 0, value, 0, id.length);
        value[id.length] = PAD_SEPARATOR;
        return value;
    }

    /** The id at the front of a record value written by {@link #toValue}. */
    public static RecordId parse(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("record has no value, hence no id");
        }
        int end = 0;
        while (end < value.length && value[end] != PAD_SEPARATOR) {
            end++;
        }
        String text = new String(value, 0, end, StandardCharsets.UTF_8);
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("not a record id (expected <key>:<seq>): " + text);
        }
        try {
            return new RecordId(text.substring(0, colon), Long.parseLong(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a record id (expected <key>:<seq>): " + text, e);
        }
    }

    /**
     * Mixed, unlike a record's default, which combines the fields' hash codes linearly: the ids of keys with
     * close names ({@code key-10}, {@code key-11}, ...) and consecutive sequence numbers then fall into a few
     * dense runs of hash codes, and {@link java.util.Set#copyOf} (linear probing) ran for minutes without
     * finishing over the 3.2 M ids of a 30-minute soak (200 keys).
     */
    @Override
    public int hashCode() {
        long h = key.hashCode() * 0x9E3779B97F4A7C15L + seq;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public int compareTo(RecordId other) {
        int byKey = key.compareTo(other.key);
        return byKey != 0 ? byKey : Long.compare(seq, other.seq);
    }

    @Override
    public String toString() {
        return key + ":" + seq;
    }
}
