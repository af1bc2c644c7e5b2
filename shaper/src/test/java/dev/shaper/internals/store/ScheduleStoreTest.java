package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The write-behind layer of the schedule store over an in-memory inner store whose content the test can see. */
class ScheduleStoreTest {

    private KeyValueStore<Bytes, byte[]> inner;
    private ScheduleStore store;

    @BeforeEach
    void setUp() {
        inner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("schedule"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        store = new ScheduleStore(inner, 100);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        store.init(context.getStateStoreContext(), store);
    }

    private static Bytes key(long due, String k) {
        return ScheduleKeys.of(due, k.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> scanAll() {
        List<String> values = new java.util.ArrayList<>();
        store.scan(ScheduleKeys.lowerBound(Long.MIN_VALUE), ScheduleKeys.lowerBound(Long.MAX_VALUE),
                e -> values.add(new String(e.value, StandardCharsets.UTF_8)));
        return values;
    }

    @Test
    void shouldWriteNothingForAnEntryQueuedAndReleasedWithinOneCommit() {
        store.put(key(5, "a"), v("x"));
        store.delete(key(5, "a"));
        store.flushCache();
        assertThat(inner.approximateNumEntries()).isZero();
    }

    @Test
    void shouldWriteSurvivorsAtCommitAndDeleteThemLater() {
        store.put(key(5, "a"), v("x"));
        assertThat(inner.get(key(5, "a"))).isNull(); // nothing written before the commit
        store.flushCache();
        assertThat(inner.get(key(5, "a"))).isEqualTo(v("x"));
        store.delete(key(5, "a"));
        assertThat(scanAll()).isEmpty();
        store.flushCache();
        assertThat(inner.get(key(5, "a"))).isNull();
    }

    @Test
    void shouldMergeBufferedAndStoredEntriesInDueOrder() {
        store.put(key(30, "a"), v("a30"));
        store.put(key(10, "b"), v("b10"));
        store.flushCache();
        store.put(key(20, "a"), v("a20"));
        store.put(key(-5, "z"), v("z-5"));
        store.delete(key(10, "b"));
        store.put(key(40, "b"), v("b40"));
        assertThat(scanAll()).containsExactly("z-5", "a20", "a30", "b40");
    }

    @Test
    void shouldOrderTheBufferLikeTheInnerStoreUnsignedBytewise() {
        // Same due: the record keys decide, compared as unsigned bytes (0x80 after 0x7f), as RocksDB does.
        store.put(ScheduleKeys.of(7, new byte[] {(byte) 0x80}), v("high"));
        store.put(ScheduleKeys.of(7, new byte[] {0x7f, 0}), v("low"));
        store.put(ScheduleKeys.of(7, new byte[] {0x7f}), v("prefix"));
        List<String> buffered = scanAll();
        store.flushCache();
        assertThat(buffered).containsExactly("prefix", "low", "high").isEqualTo(scanAll());
    }

    @Test
    void shouldHideAStoredEntryReleasedTwiceAndWriteOneTombstone() {
        store.put(key(5, "a"), v("x"));
        store.put(key(6, "a"), v("y"));
        store.flushCache();
        store.delete(key(5, "a"));
        store.delete(key(5, "a"));
        assertThat(scanAll()).containsExactly("y");
        store.flushCache();
        assertThat(inner.get(key(5, "a"))).isNull();
        assertThat(scanAll()).containsExactly("y");
    }

    @Test
    void shouldStopWhereTheVisitorSaysAndSayWhere() {
        for (int i = 1; i <= 5; i++) {
            store.put(key(i, "k"), v("v" + i));
        }
        List<String> seen = new java.util.ArrayList<>();
        Bytes stoppedAt = store.scan(ScheduleKeys.lowerBound(0), ScheduleKeys.lowerBound(100), e -> {
            if (seen.size() == 3) {
                return false;
            }
            seen.add(new String(e.value, StandardCharsets.UTF_8));
            return true;
        });
        assertThat(seen).containsExactly("v1", "v2", "v3");
        assertThat(stoppedAt).isEqualTo(key(4, "k"));
        assertThat(store.scan(ScheduleKeys.lowerBound(0), ScheduleKeys.lowerBound(100), e -> true)).isNull();
    }

    @Test
    void shouldRespectTheScanBounds() {
        store.put(key(1, "a"), v("1"));
        store.put(key(2, "a"), v("2"));
        store.flushCache();
        store.put(key(3, "a"), v("3"));
        List<Long> dues = new java.util.ArrayList<>();
        store.scan(ScheduleKeys.lowerBound(2), ScheduleKeys.lowerBound(3), e -> dues.add(ScheduleKeys.due(e.key)));
        assertThat(dues).containsExactly(2L);
    }

    @Test
    void shouldWriteEarlyWhenTheBufferOutgrowsItsLimit() {
        for (int i = 0; i < 101; i++) {
            store.put(key(i, "k"), v("v"));
        }
        assertThat(inner.approximateNumEntries()).isEqualTo(101);
    }

    @Test
    void shouldDiscardTheBufferOnClose() {
        store.put(key(1, "a"), v("1"));
        store.clearCache();
        store.flushCache();
        assertThat(inner.approximateNumEntries()).isZero();
    }

    @Test
    void shouldKeepKeysOrderedByDueThenKeyAndRoundTrip() {
        assertThat(key(-1, "a").compareTo(key(0, "a"))).isNegative();
        assertThat(key(1, "b").compareTo(key(2, "a"))).isNegative();
        assertThat(key(Long.MAX_VALUE - 1, "a").compareTo(key(Long.MAX_VALUE, ""))).isNegative();
        Bytes k = key(123_456_789L, "key-ü");
        assertThat(ScheduleKeys.due(k)).isEqualTo(123_456_789L);
        assertThat(new String(ScheduleKeys.recordKey(k), StandardCharsets.UTF_8)).isEqualTo("key-ü");
    }
}
