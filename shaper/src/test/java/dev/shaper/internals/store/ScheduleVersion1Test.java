package dev.shaper.internals.store;

import static dev.shaper.internals.store.ScheduleStoreFormatTest.b;
import static dev.shaper.internals.store.ScheduleStoreFormatTest.scanAll;
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
 * A schedule store that the version before segments wrote (formats/schedule-store-v1.hex, one record per entry),
 * opened by this one: its records are shown at their dues, released, and deleted; new records of its keys queue
 * behind them, in segments.
 */
class ScheduleVersion1Test {

    private static final long S = 1_000_000_000L;

    private KeyValueStore<Bytes, byte[]> inner;
    private ScheduleStore store;

    @BeforeEach
    void setUp() {
        inner = KeyStateFixtures.innerStore("schedule");
        FormatFixtures.restore(inner, "schedule-store-v1");
        store = new ScheduleStore(inner, 100, Long.MAX_VALUE, 1_048_588);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
    }

    @Test
    void shouldShowEachRecordAtItsDueWithWhatItWasQueuedWith() {
        assertThat(scanAll(store)).containsExactly(
                "1000000000 a [timestamp 1767225600000, queued 1767225600250, cost 1, headers [trace=t1, empty=null],"
                        + " value a:0]",
                "1050000000 b [timestamp 1767225600050, queued 1767225600270, cost 3, headers [], value null]",
                "1100000000 a [timestamp 1767225600100, queued 1767225600260, cost 1, headers [], value a:1]");
    }

    @Test
    void shouldReleaseTheDueRecordsAndDeleteTheirEntriesAtTheCommit() {
        // When: what is due at 1.05 s is released, and the task commits
        assertThat(releaseUpTo(1_050_000_000L)).containsExactly("a:0", "null");
        store.flushCache();

        // Then: their entries are gone, the other one is kept as it was, and is released in its turn
        assertThat(storedHex()).containsExactly("800000004190ab0061");
        assertThat(inner.get(ScheduleKeys.of(1_100_000_000L, b("a")))).isEqualTo(
                FormatFixtures.entries("schedule-store-v1").get(2).value);
        assertThat(releaseUpTo(2 * S)).containsExactly("a:1");
        store.flushCache();
        assertThat(storedHex()).isEmpty();
    }

    @Test
    void shouldQueueNewRecordsOfAKeyBehindItsEntriesOfVersion1InASegment() {
        // Given: a new record of "a", due after its last record of version 1, written at a commit
        store.put(b("a"), 1_200_000_000L, new QueuedRecord(1, 2, 1, new RecordHeaders(), b("a:2")).encode());
        store.flushCache();
        assertThat(inner.get(ScheduleKeys.of(1_200_000_000L, b("a")))[0]).isEqualTo(ScheduleSegment.VERSION);

        // Then: the key's records leave in their order, the old format's first
        assertThat(releaseUpTo(2 * S)).containsExactly("a:0", "null", "a:1", "a:2");
    }

    /** Scans up to due {@code now} and releases everything it shows, as the release punctuator does. */
    private List<String> releaseUpTo(long now) {
        List<ScheduleStore.Entry> due = new ArrayList<>();
        store.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE), ScheduleKeys.lowerBound(now + 1), due::add);
        due.forEach(store::release);
        return due.stream().map(e -> QueuedRecord.decode(e.value()).value())
                .map(v -> v == null ? "null" : new String(v, StandardCharsets.UTF_8)).toList();
    }

    private List<String> storedHex() {
        List<String> keys = new ArrayList<>();
        try (var it = inner.all()) {
            it.forEachRemaining(kv -> keys.add(HexFormat.of().formatHex(kv.key.get())));
        }
        return keys;
    }
}
