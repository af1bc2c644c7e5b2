package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.VersionOneState;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;

/**
 * {@link VersionOneState}, which tests use to start this version on the previous one's state, writes the bytes
 * that version wrote: the committed fixtures.
 */
class VersionOneStateTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void shouldWriteTheScheduleEntriesOfTheFixtureOfVersion1() {
        List<KeyValue<byte[], byte[]>> written = List.of(
                VersionOneState.scheduleEntry("a", 1_000_000_000L, 1767225600000L, 1767225600250L, 1,
                        new RecordHeaders().add("trace", ScheduleStoreFormatTest.b("t1")).add("empty", null),
                        ScheduleStoreFormatTest.b("a:0")),
                VersionOneState.scheduleEntry("b", 1_050_000_000L, 1767225600050L, 1767225600270L, 3,
                        new RecordHeaders(), null),
                VersionOneState.scheduleEntry("a", 1_100_000_000L, 1767225600100L, 1767225600260L, 1,
                        new RecordHeaders(), ScheduleStoreFormatTest.b("a:1")));

        assertThat(written).extracting(kv -> HEX.formatHex(kv.key) + " " + HEX.formatHex(kv.value))
                .containsExactlyElementsOf(FormatFixtures.entries("schedule-store-v1").stream()
                        .map(kv -> HEX.formatHex(kv.key.get()) + " " + HEX.formatHex(kv.value)).toList());
        assertThat(VersionOneState.queuedBytes("a", written.get(0))).isEqualTo(1 + 64);
    }

    @Test
    void shouldWriteTheKeyStateStoresEntriesOfVersion1() {
        KeyValue<byte[], byte[]> state = VersionOneState.keyState("a", 1_200_000_000L, 2, 2, 99, 1_000_000_000L);
        KeyValue<byte[], byte[]> time = VersionOneState.virtualTime(1_000_000_000L);

        assertThat(state.key).isEqualTo(KeyStateKeys.of(ScheduleStoreFormatTest.b("a")).get());
        assertThat(HEX.formatHex(state.value)).isEqualTo(HEX.formatHex(FormatFixtures.value("key-state-v1")));
        assertThat(time.key).isEqualTo(KeyStateKeys.CLOCK.get());
        assertThat(HEX.formatHex(time.value)).isEqualTo(HEX.formatHex(FormatFixtures.value("virtual-time")));
    }
}
