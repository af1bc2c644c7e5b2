package dev.shaper.internals.store;

import static dev.shaper.internals.store.FormatFixtures.assertSameBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.shaping.KeyState;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The key-state store's formats pinned to committed bytes ({@link FormatFixtures}): a key's state and the task's
 * virtual time. Their keys are pinned by {@link KeyStateKeysTest}.
 */
class KeyStateStoreFormatTest {

    private static final KeyState STATE = new KeyState(1_200_000_000L, 2, 2, 99, 1_000_000_000L);

    @Test
    void shouldEncodeAKeyStateAsVersion1() {
        assertSameBytes("key-state-v1", KeyStateCodec.encode(STATE));
    }

    @Test
    void shouldDecodeAKeyStateOfVersion1() {
        assertThat(KeyStateCodec.decode(FormatFixtures.value("key-state-v1"))).isEqualTo(STATE);
    }

    @Test
    void shouldRefuseAnUnknownVersionNamingItAndTheVersionsItReads() {
        byte[] later = FormatFixtures.value("key-state-v1");
        later[0] = 2;

        assertThatThrownBy(() -> KeyStateCodec.decode(later)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a key state in the key-state store has format version 2, but this build reads"
                        + " version 1 (37 bytes, or 46 with the band)")
                .hasMessageContaining("drain its queues").hasMessageContaining("docs/upgrading.md")
                .hasMessageNotContaining("reset");
        assertThatThrownBy(() -> KeyStateCodec.decode(new byte[0])).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no format version (it is empty)");
    }

    @Test
    void shouldRefuseTheLayoutOfVersion1BeforeTheReleaseScheduleWhichNoReleaseWrote() {
        // version:1 tat:8 queuedRecords:4 queuedUnits:8 queuedBytes:8, without releaseTat:8
        byte[] shorter = java.util.Arrays.copyOf(FormatFixtures.value("key-state-v1"), 29);

        assertThatThrownBy(() -> KeyStateCodec.decode(shorter)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has format version 1 but 29 bytes, not 37");
    }

    @Test
    void shouldWriteAndReadTheVirtualTimeAsEightBytes() {
        KeyValueStore<Bytes, byte[]> inner = KeyStateFixtures.innerStore("keys");
        StoredVirtualClock clock = new StoredVirtualClock(inner);
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();

        clock.save(1_000_000_000L);
        clock.addTo(batch, true);

        assertThat(batch).extracting(kv -> kv.key).containsExactly(KeyStateKeys.CLOCK);
        assertSameBytes("virtual-time", batch.get(0).value);
        inner.put(KeyStateKeys.CLOCK, FormatFixtures.value("virtual-time"));
        assertThat(clock.load()).isEqualTo(1_000_000_000L);
    }
}
