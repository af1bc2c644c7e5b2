package dev.shaper.internals.store;

import static dev.shaper.internals.store.FormatFixtures.assertSameBytes;
import static dev.shaper.internals.store.FormatFixtures.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The schedule store's formats pinned to committed bytes ({@link FormatFixtures}): a record's encoding, the
 * segments and the keys, written and read back. A change of any of them fails here until it gets a new version.
 */
class ScheduleStoreFormatTest {

    private static final ScheduleBand BAND = new ScheduleBand(1, 2.0);
    private static final QueuedRecord A0 = new QueuedRecord(1767225600000L, 1767225600250L, 1,
            new RecordHeaders().add("trace", b("t1")).add("empty", null), b("a:0"));
    private static final QueuedRecord A1 = new QueuedRecord(1767225600100L, 1767225600260L, 1, new RecordHeaders(),
            b("a:1"));
    private static final QueuedRecord B0 = new QueuedRecord(1767225600050L, 1767225600270L, 3, new RecordHeaders(),
            null);
    private static final QueuedRecord C0 = new QueuedRecord(1767225600020L, 1767225600280L, 2, new RecordHeaders(),
            b("c:0"));

    private KeyValueStore<Bytes, byte[]> inner;
    private ScheduleStore store;

    @BeforeEach
    void setUp() {
        inner = KeyStateFixtures.innerStore("schedule");
        store = new ScheduleStore(inner, 100, Long.MAX_VALUE, 1_048_588);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
    }

    @Test
    void shouldEncodeAQueuedRecordAsVersion1() {
        assertSameBytes("queued-record-v1", A0.encode());
        assertSameBytes("queued-record-v1-null-value", B0.encode());
    }

    @Test
    void shouldDecodeAQueuedRecordOfVersion1() {
        assertThat(describe(QueuedRecord.decode(FormatFixtures.value("queued-record-v1")))).isEqualTo(describe(A0));
        assertThat(describe(QueuedRecord.decode(FormatFixtures.value("queued-record-v1-null-value"))))
                .isEqualTo(describe(B0));
        assertThat(QueuedRecord.enqueuedWallMsOf(FormatFixtures.value("queued-record-v1"))).isEqualTo(1767225600250L);
        assertThat(QueuedRecord.costOf(FormatFixtures.value("queued-record-v1-null-value"))).isEqualTo(3);
    }

    @Test
    void shouldWriteSegmentsOfVersion2UnderTheirBandsKeys() {
        store.put(b("a"), 1_000_000_000L, A0.encode());
        store.put(b("b"), 1_050_000_000L, B0.encode());
        store.put(b("a"), 1_100_000_000L, A1.encode());
        store.band(BAND).put(b("c"), 1_020_000_000L, C0.encode());

        store.flushCache();

        assertSameEntries("schedule-store-v2", inner);
    }

    @Test
    void shouldReadSegmentsOfVersion2() {
        FormatFixtures.restore(inner, "schedule-store-v2");

        assertThat(store.storedBands()).containsExactly(BAND);
        assertThat(scanAll(store)).containsExactly(
                "1000000000 a " + describe(A0), "1100000000 a " + describe(A1), "1050000000 b " + describe(B0));
        assertThat(scanAll(store.band(BAND))).containsExactly("1020000000 c " + describe(C0));
    }

    @Test
    void shouldLayOutScheduleKeysAsTheFixturesShow() {
        HexFormat hex = HexFormat.of();
        // The sign bit flipped, so that a due before the epoch sorts before every later one
        assertThat(hex.formatHex(ScheduleKeys.of(-2, b("z")).get())).isEqualTo("7ffffffffffffffe7a");
        assertThat(hex.formatHex(ScheduleKeys.lowerBound(1_000_000_000L).get())).isEqualTo("800000003b9aca00");
        assertThat(hex.formatHex(BAND.prefix())).isEqualTo("024000000000000000");
        assertThat(ScheduleBand.DEFAULT.prefix()).isEmpty();
    }

    /** Every record {@code schedule} holds, as "due key record", in scan order. */
    static List<String> scanAll(ScheduleStore schedule) {
        List<String> shown = new ArrayList<>();
        schedule.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE), Bytes.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1,
            -1, -1}), entry -> shown.add(entry.dueNanos() + " " + new String(entry.recordKey(), StandardCharsets.UTF_8)
                + " " + describe(QueuedRecord.decode(entry.value()))));
        return shown;
    }

    /** A record's fields as text: QueuedRecord's equals compares its value and headers by reference. */
    static String describe(QueuedRecord record) {
        List<String> headers = new ArrayList<>();
        record.headers().forEach(h -> headers.add(h.key() + "="
                + (h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8))));
        return "[timestamp " + record.timestamp() + ", queued " + record.enqueuedWallMs() + ", cost " + record.cost()
                + ", headers " + headers + ", value "
                + (record.value() == null ? "null" : new String(record.value(), StandardCharsets.UTF_8)) + "]";
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
