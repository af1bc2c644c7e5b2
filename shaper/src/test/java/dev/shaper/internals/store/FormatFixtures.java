package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The committed bytes of each stored format, under {@code src/test/resources/formats/}: hex, spaced and commented
 * ({@code #} to the end of the line) so that a reader sees each field.
 *
 * <p>A fixture is either one value (only hex lines) or the entries of a store: {@code key <hex>} starts an entry,
 * {@code value <hex>} its value, and lines of hex alone continue the field above them.
 */
final class FormatFixtures {

    private static final HexFormat HEX = HexFormat.of();

    private FormatFixtures() {
    }

    /** The one value of fixture {@code name}. */
    static byte[] value(String name) {
        StringBuilder hex = new StringBuilder();
        for (String line : lines(name)) {
            hex.append(line);
        }
        return HEX.parseHex(hex.toString().replaceAll("\\s", ""));
    }

    /** The store entries of fixture {@code name}, in the fixture's order. */
    static List<KeyValue<Bytes, byte[]>> entries(String name) {
        List<StringBuilder[]> fields = new ArrayList<>();
        StringBuilder current = null;
        for (String line : lines(name)) {
            if (line.startsWith("key")) {
                fields.add(new StringBuilder[] {new StringBuilder(line.substring(3)), new StringBuilder()});
                current = fields.get(fields.size() - 1)[0];
            } else if (line.startsWith("value")) {
                current = fields.get(fields.size() - 1)[1];
                current.append(line.substring(5));
            } else if (current == null) {
                throw new IllegalArgumentException(name + ": hex before the first key: " + line);
            } else {
                current.append(line);
            }
        }
        List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
        for (StringBuilder[] entry : fields) {
            entries.add(KeyValue.pair(Bytes.wrap(parse(entry[0])), parse(entry[1])));
        }
        return entries;
    }

    /** Writes the entries of fixture {@code name} to {@code store}, as a restore from its changelog would. */
    static void restore(KeyValueStore<Bytes, byte[]> store, String name) {
        store.putAll(entries(name));
    }

    /**
     * Fails unless {@code actual} is the value of fixture {@code name}, byte for byte, with a message that says
     * what a difference means.
     */
    static void assertSameBytes(String name, byte[] actual) {
        assertThat(HEX.formatHex(actual)).as(changedFormat(name)).isEqualTo(HEX.formatHex(value(name)));
    }

    /** Fails unless {@code store} holds exactly the entries of fixture {@code name}, byte for byte, in order. */
    static void assertSameEntries(String name, KeyValueStore<Bytes, byte[]> store) {
        List<String> actual = new ArrayList<>();
        try (var it = store.all()) {
            it.forEachRemaining(kv -> actual.add(HEX.formatHex(kv.key.get()) + " " + HEX.formatHex(kv.value)));
        }
        List<String> expected = entries(name).stream()
                .map(kv -> HEX.formatHex(kv.key.get()) + " " + HEX.formatHex(kv.value)).toList();
        assertThat(actual).as(changedFormat(name)).containsExactlyElementsOf(expected);
    }

    private static String changedFormat(String name) {
        return "the bytes of formats/" + name + ".hex: a stored format changed. If that was meant, give the format"
                + " a new version, keep reading the previous one, and add a fixture of the new version"
                + " (docs/upgrading.md)";
    }

    private static byte[] parse(StringBuilder hex) {
        return HEX.parseHex(hex.toString().replaceAll("\\s", ""));
    }

    /** The fixture's lines without comments and blanks. */
    private static List<String> lines(String name) {
        String path = "/formats/" + name + ".hex";
        try (InputStream in = FormatFixtures.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + path);
            }
            List<String> lines = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                int comment = line.indexOf('#');
                String content = (comment >= 0 ? line.substring(0, comment) : line).strip();
                if (!content.isEmpty()) {
                    lines.add(content);
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
