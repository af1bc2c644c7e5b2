package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StoredVirtualClockTest {

    private KeyValueStore<Bytes, byte[]> inner;
    private StoredVirtualClock clock;
    private final List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();

    @BeforeEach
    void setUp() {
        inner = KeyStateFixtures.innerStore("keys");
        clock = new StoredVirtualClock(inner);
    }

    @Test
    void shouldStoreTheTimeAsEightBigEndianBytesUnderTheClockKey() {
        clock.save(0x0102030405060708L);
        clock.addTo(batch, true);
        assertThat(batch).hasSize(1);
        assertThat(batch.get(0).key).isEqualTo(KeyStateKeys.CLOCK);
        assertThat(batch.get(0).value).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        inner.putAll(batch);
        assertThat(clock.load()).isEqualTo(0x0102030405060708L);
    }

    @Test
    void shouldKeepTheSavedTimeUntilACommitWithStatesStored() {
        assertThat(clock.load()).isNull();
        clock.save(41);
        clock.addTo(batch, false);
        assertThat(batch).isEmpty();
        clock.save(42);
        clock.addTo(batch, true);
        assertThat(StoredVirtualClock.decode(batch.get(0).value)).isEqualTo(42L);
        // Written once: the next commit writes a time only if one was saved meanwhile
        batch.clear();
        clock.addTo(batch, true);
        assertThat(batch).isEmpty();
    }

    @Test
    void shouldForgetTheSavedTimeWhenDiscarded() {
        clock.save(42);
        clock.discard();
        clock.addTo(batch, true);
        assertThat(batch).isEmpty();
    }

    @Test
    void shouldTellTheTimeThatDecidesIdleness() {
        assertThat(clock.now()).isEqualTo(Long.MIN_VALUE);
        clock.setNow(5);
        assertThat(clock.now()).isEqualTo(5);
    }
}
