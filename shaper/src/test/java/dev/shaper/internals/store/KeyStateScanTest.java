package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

class KeyStateScanTest {

    @Test
    void shouldSumWhatTheStoredStatesHoldQueuedLeavingTheClockOut() {
        KeyValueStore<Bytes, byte[]> inner = KeyStateFixtures.innerStore("keys");
        assertThat(KeyStateScan.queuedTotals(inner, (key, state, band) -> { })).isEqualTo(new QueuedTotals(0, 0, 0));
        inner.put(KeyStateKeys.CLOCK, StoredVirtualClock.encode(7));
        KeyStateFixtures.putStored(inner, "a", new KeyState(100, 2, 2, 30));
        KeyStateFixtures.putStored(inner, "b", new KeyState(100, 1, 5, 12));
        KeyStateFixtures.putStored(inner, "c", new KeyState(100, 0, 0, 0));

        assertThat(KeyStateScan.queuedTotals(inner, (key, state, band) -> { })).isEqualTo(new QueuedTotals(3, 7, 42));
        assertThat(KeyStateScan.count(inner)).isEqualTo(3);
    }
}
