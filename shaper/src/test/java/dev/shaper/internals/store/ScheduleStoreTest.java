package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The write-behind layer of the schedule store, and its segments, over an in-memory inner store whose content the
 * test can see.
 */
class ScheduleStoreTest {

    /** The broker's default topic limit: large enough for every segment these tests build. */
    private static final long MAX_STORED = 1_048_588;

    private KeyValueStore<Bytes, byte[]> inner;
    private ScheduleStore store;

    @BeforeEach
    void setUp() {
        inner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("schedule"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        store = new ScheduleStore(inner, 100, Long.MAX_VALUE, MAX_STORED);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        store.init(context.getStateStoreContext(), store);
    }

    private static Bytes key(long due, String k) {
        return ScheduleKeys.of(due, k.getBytes(StandardCharsets.UTF_8));
    }

    private void put(long due, String recordKey, String value) {
        store.put(recordKey.getBytes(StandardCharsets.UTF_8), due, v(value));
    }

    private static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A record key. */
    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static final Bytes ALL_FROM = ScheduleKeys.lowerBound(Long.MIN_VALUE);
    /** Above every schedule key of the keys these tests use, those due at Long.MAX_VALUE included. */
    private static final Bytes ALL_TO = Bytes.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1});

    private List<String> scanAll() {
        return values(scan(ALL_FROM, ALL_TO));
    }

    private List<ScheduleStore.Entry> scan(Bytes from, Bytes to) {
        List<ScheduleStore.Entry> entries = new ArrayList<>();
        store.scan(from, to, entries::add);
        return entries;
    }

    /** Scans up to due {@code now} and releases everything it shows, as the release punctuator does. */
    private List<String> releaseUpTo(long now) {
        List<ScheduleStore.Entry> due = scan(ALL_FROM, ScheduleKeys.lowerBound(now + 1));
        due.forEach(store::release);
        return values(due);
    }

    private static List<String> values(List<ScheduleStore.Entry> entries) {
        return entries.stream().map(e -> new String(e.value(), StandardCharsets.UTF_8)).toList();
    }

    private List<Bytes> storedKeys() {
        List<Bytes> keys = new ArrayList<>();
        try (var it = inner.all()) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    @Test
    void shouldWriteNothingForARecordQueuedAndReleasedWithinOneCommit() {
        put(5, "a", "x");
        assertThat(releaseUpTo(5)).containsExactly("x");
        store.flushCache();
        assertThat(storedKeys()).isEmpty();
    }

    @Test
    void shouldEndASegmentBeforeItOutgrowsWhatTheChangelogTakes() {
        // Given: a changelog that takes records of 3,000 bytes, and 20 records of 500 bytes of one key
        store = new ScheduleStore(inner, 100, Long.MAX_VALUE, 3_000);
        List<String> queued = new ArrayList<>();
        for (int due = 1; due <= 20; due++) {
            String value = due + "-" + "v".repeat(497);
            queued.add(value);
            put(due, "a", value);
        }

        // When: the commit writes them
        store.flushCache();

        // Then: as several segments, each of which fits, and nothing is lost or out of order
        List<Integer> sizes = new ArrayList<>();
        try (var it = inner.all()) {
            it.forEachRemaining(kv -> sizes.add((int) dev.shaper.internals.limits.RecordSize.of(kv.key.get(),
                    kv.value, new org.apache.kafka.common.header.internals.RecordHeaders())));
        }
        assertThat(sizes).hasSizeGreaterThan(1).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(3_000));
        assertThat(scanAll()).isEqualTo(queued);
    }

    @Test
    void shouldSayWhetherARecordFitsAloneInItsChangelog() {
        store = new ScheduleStore(inner, 100, Long.MAX_VALUE, 3_000);

        assertThat(store.fitsAlone(k("a"), new byte[2_800])).isTrue();
        assertThat(store.fitsAlone(k("a"), new byte[2_950])).isFalse();
        assertThat(store.fitsAlone(new byte[2_000], new byte[900])).isFalse(); // the key counts too
    }

    @Test
    void shouldWriteAKeysSurvivorsAsOneSegmentAtCommitAndDeleteItWhenReleased() {
        put(5, "a", "a5");
        put(6, "b", "b6");
        put(7, "a", "a7");
        assertThat(storedKeys()).isEmpty(); // nothing written before the commit
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(5, "a"), key(6, "b"));
        assertThat(scanAll()).containsExactly("a5", "a7", "b6");
        assertThat(releaseUpTo(7)).containsExactly("a5", "a7", "b6");
        assertThat(scanAll()).isEmpty();
        store.flushCache();
        assertThat(storedKeys()).isEmpty();
    }

    @Test
    void shouldWriteWhatRemainsOfAPartlyReleasedSegmentUnderItsFirstRemainingRecord() {
        for (int due = 1; due <= 4; due++) {
            put(due, "a", "a" + due);
        }
        store.flushCache();
        assertThat(releaseUpTo(2)).containsExactly("a1", "a2");
        assertThat(store.firstOpenPosition()).isEqualTo(key(1, "a"));
        assertThat(scanAll()).containsExactly("a3", "a4");
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(3, "a"));
        assertThat(store.firstOpenPosition()).isNull();
        assertThat(scanAll()).containsExactly("a3", "a4");
    }

    @Test
    void shouldWriteWhatRemainsOfAPartlyReleasedRunUnderItsFirstRemainingRecord() {
        for (int due = 1; due <= 4; due++) {
            put(due, "a", "a" + due);
        }
        assertThat(releaseUpTo(2)).containsExactly("a1", "a2");
        // The run keeps its place in the order while it holds records: scans must start there.
        assertThat(store.firstOpenPosition()).isEqualTo(key(1, "a"));
        put(5, "a", "a5"); // joins the same run
        assertThat(scanAll()).containsExactly("a3", "a4", "a5");
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(3, "a"));
        assertThat(scanAll()).containsExactly("a3", "a4", "a5");
    }

    @Test
    void shouldEndASegmentAtItsSpanOfDues() {
        // Given: segments that span at most 10 ns of dues, and a key with records due 0 to 25
        store = new ScheduleStore(inner, 100, 10, MAX_STORED);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        for (int due = 0; due <= 25; due += 5) {
            put(due, "a", "a" + due);
        }
        // When
        store.flushCache();
        // Then: one segment per 10 ns of dues, each under its first record's schedule key
        assertThat(storedKeys()).containsExactly(key(0, "a"), key(10, "a"), key(20, "a"));
        assertThat(scanAll()).containsExactly("a0", "a5", "a10", "a15", "a20", "a25");
    }

    @Test
    void shouldDeleteARecordThatLeftItsOwnSegmentWithoutRewritingTheRest() {
        // Given: a slow key, one record per 100 ns, with segments of at most 25 ns: one record each
        store = new ScheduleStore(inner, 100, 25, MAX_STORED);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        for (int i = 0; i < 5; i++) {
            put(i * 100L, "slow", "s" + i);
        }
        store.flushCache();
        assertThat(storedKeys()).hasSize(5);
        byte[] second = inner.get(key(100, "slow"));
        // When: a tick releases the head, and the commit follows
        assertThat(releaseUpTo(0)).containsExactly("s0");
        store.flushCache();
        // Then: its segment is gone and the others are untouched (with one 64-record segment, the commit wrote
        // the other four records again)
        assertThat(storedKeys()).containsExactly(key(100, "slow"), key(200, "slow"), key(300, "slow"),
                key(400, "slow"));
        assertThat(inner.get(key(100, "slow"))).isSameAs(second);
    }

    @Test
    void shouldRefuseToReleaseTheRecordsOfAKeyOutOfOrder() {
        put(1, "a", "a1");
        put(2, "a", "a2");
        ScheduleStore.Entry second = scan(ALL_FROM, ALL_TO).get(1);
        assertThatThrownBy(() -> store.release(second)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldWriteEverythingPendingWhenAPutOverflowsTheBufferAndAgainAtTheCommit() {
        store = new ScheduleStore(inner, 4, Long.MAX_VALUE, MAX_STORED);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        put(1, "c", "c1");
        put(2, "a", "a2");
        put(3, "a", "a3");
        assertThat(store.put(k("a"), 10, v("a10"))).isFalse(); // four buffered: the limit
        assertThat(store.put(k("a"), 11, v("a11"))).isTrue(); // five buffered: written early, and put says so
        assertThat(storedKeys()).containsExactly(key(1, "c"), key(2, "a"));
        assertThat(releaseUpTo(3)).containsExactly("c1", "a2", "a3"); // c's segment gone, a's released in part
        put(6, "b", "b6");
        put(7, "b", "b7");
        assertThat(releaseUpTo(6)).containsExactly("b6"); // b's run released in part
        put(8, "b", "b8");
        put(9, "b", "b9");
        put(12, "b", "b12"); // four buffered and a tombstone pending: written early
        assertThat(storedKeys()).containsExactly(key(7, "b"), key(10, "a"));
        assertThat(scanAll()).containsExactly("b7", "b8", "b9", "b12", "a10", "a11");
        assertThat(releaseUpTo(10)).containsExactly("b7", "b8", "b9", "a10");
        store.flushCache(); // both remainders written again, a's for the second time since the last commit
        assertThat(storedKeys()).containsExactly(key(11, "a"), key(12, "b"));
        assertThat(scanAll()).containsExactly("a11", "b12");
    }

    @Test
    void shouldStartANewRunWhenAKeysRunEmptiedWithinTheInterval() {
        put(1, "a", "a1");
        assertThat(releaseUpTo(1)).containsExactly("a1");
        assertThat(store.firstOpenPosition()).isNull();
        put(5, "a", "a5");
        assertThat(store.firstOpenPosition()).isEqualTo(key(5, "a"));
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(5, "a"));
    }

    @Test
    void shouldRefuseAnEntryOfARunThatACommitWroteOut() {
        put(1, "a", "a1");
        ScheduleStore.Entry entry = scan(ALL_FROM, ALL_TO).get(0);
        store.flushCache();
        assertThatThrownBy(() -> store.release(entry)).isInstanceOf(IllegalStateException.class);
        assertThat(scanAll()).containsExactly("a1");
    }

    @Test
    void shouldKeepRecordsDueAtTheEndsOfTime() {
        // Dues are virtual times since the epoch: 0 is the first a schedule takes
        put(0, "a", "first");
        put(Long.MAX_VALUE, "a", "last");
        assertThat(scanAll()).containsExactly("first", "last");
        store.flushCache();
        assertThat(scanAll()).containsExactly("first", "last");
        assertThat(releaseUpTo(0)).containsExactly("first");
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(Long.MAX_VALUE, "a"));
        assertThatThrownBy(() -> put(-1, "b", "before the epoch")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldForgetReleasesThatNoCommitCoveredWhenTheBufferIsDiscarded() {
        put(1, "a", "a1");
        put(2, "a", "a2");
        store.flushCache();
        assertThat(releaseUpTo(1)).containsExactly("a1");
        store.clearCache(); // the task died: its input since the commit is processed again
        store.flushCache();
        assertThat(scanAll()).containsExactly("a1", "a2");
    }

    @Test
    void shouldKeepAtMostMaxRecordsInOneSegment() {
        int records = 2 * ScheduleSegment.MAX_RECORDS + 1;
        store = new ScheduleStore(inner, 1_000, Long.MAX_VALUE, MAX_STORED);
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        for (int due = 0; due < records; due++) {
            put(due, "a", "a" + due);
        }
        store.flushCache();
        assertThat(storedKeys()).containsExactly(key(0, "a"), key(ScheduleSegment.MAX_RECORDS, "a"),
                key(2L * ScheduleSegment.MAX_RECORDS, "a"));
        assertThat(scanAll()).hasSize(records);
    }

    @Test
    void shouldShowEachKeysRecordsInDueOrderAcrossSegmentsAndBuffer() {
        put(10, "a", "a10");
        put(20, "b", "b20");
        put(30, "a", "a30");
        store.flushCache();
        put(25, "b", "b25");
        put(40, "a", "a40");
        put(5, "z", "z5");
        // A stored segment shows its records together, at the place of its first one.
        assertThat(scanAll()).containsExactly("z5", "a10", "a30", "b20", "b25", "a40");
    }

    @Test
    void shouldShowOnlyTheDueRecordsOfASegmentAndKeepItOpenForLaterScans() {
        put(1, "a", "a1");
        put(9, "a", "a9");
        store.flushCache();
        assertThat(values(scan(ALL_FROM, ScheduleKeys.lowerBound(5)))).containsExactly("a1");
        // Not released, but its rest falls due later: a scan that starts after the segment would miss it.
        assertThat(store.firstOpenPosition()).isEqualTo(key(1, "a"));
        store.flushCache(); // shown is not released: the commit keeps the whole segment
        assertThat(storedKeys()).containsExactly(key(1, "a"));
        assertThat(scanAll()).containsExactly("a1", "a9");
    }

    @Test
    void shouldOrderTheBufferLikeTheInnerStoreUnsignedBytewise() {
        // Same due: the record keys decide, compared as unsigned bytes (0x80 after 0x7f), as RocksDB does.
        store.put(new byte[] {(byte) 0x80}, 7, v("high"));
        store.put(new byte[] {0x7f, 0}, 7, v("low"));
        store.put(new byte[] {0x7f}, 7, v("prefix"));
        List<String> buffered = scanAll();
        store.flushCache();
        assertThat(buffered).containsExactly("prefix", "low", "high").isEqualTo(scanAll());
    }

    @Test
    void shouldStopWhereTheVisitorSaysAndSayWhereToStartAgain() {
        for (int i = 1; i <= 5; i++) {
            put(i, "k", "v" + i);
        }
        put(3, "j", "j3");
        store.flushCache(); // k's records are one segment now
        List<String> seen = new ArrayList<>();
        Bytes stoppedAt = store.scan(ALL_FROM, ALL_TO, e -> {
            if (seen.size() == 3) {
                return false;
            }
            seen.add(new String(e.value(), StandardCharsets.UTF_8));
            return true;
        });
        assertThat(seen).containsExactly("v1", "v2", "v3");
        assertThat(stoppedAt).isEqualTo(key(1, "k")); // the segment: where a scan shows v4 again
        assertThat(store.scan(ALL_FROM, ALL_TO, e -> true)).isNull();
    }

    @Test
    void shouldRespectTheScanBounds() {
        put(1, "a", "1");
        put(2, "b", "2");
        store.flushCache();
        put(3, "c", "3");
        List<Long> dues = scan(ScheduleKeys.lowerBound(2), ScheduleKeys.lowerBound(3)).stream()
                .map(e -> ScheduleKeys.due(e.scheduleKey())).toList();
        assertThat(dues).containsExactly(2L);
    }

    @Test
    void shouldWriteEarlyWhenTheBufferOutgrowsItsLimit() {
        for (int i = 0; i < 101; i++) {
            put(i, "k" + i, "v");
        }
        assertThat(inner.approximateNumEntries()).isEqualTo(101);
    }

    @Test
    void shouldDiscardTheBufferOnClose() {
        put(1, "a", "1");
        store.clearCache();
        store.flushCache();
        assertThat(inner.approximateNumEntries()).isZero();
    }

    @Test
    void shouldRefuseToReleaseARecordItDoesNotHold() {
        put(1, "a", "1");
        ScheduleStore.Entry entry = scan(ALL_FROM, ALL_TO).get(0);
        store.release(entry);
        assertThatThrownBy(() -> store.release(entry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not buffered or not the next of its key");
    }

    @Test
    void shouldNameAStoredEntryOfAnUnknownFormatAndTheDrainInsteadOfAReset() {
        inner.put(key(1, "a"), new byte[] {7, 2, 3});
        assertThatThrownBy(this::scanAll).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("schedule store entry " + key(1, "a") + " has format version 7")
                .hasMessageContaining("this build reads versions 1 (a record per entry) and 2 (segments)")
                .hasMessageContaining("drain its queues").hasMessageContaining("docs/upgrading.md")
                .hasMessageNotContaining("reset");
    }

    @Test
    void shouldNameAnEmptyStoredEntry() {
        inner.put(key(1, "a"), new byte[0]);
        assertThatThrownBy(this::scanAll).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no format version (it is empty)");
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
    @Test
    void shouldKeepEachBandsRecordsApartInOneStoreAndFindTheBandsAgainWhenReopened() {
        // Given: a record in the default band and one in each of two other bands, written out at a commit
        ScheduleBand backfill = new ScheduleBand(1, 1.0);
        ScheduleBand heavy = new ScheduleBand(0, 3.0);
        put(10, "a", "default");
        store.band(backfill).put(k("b"), 5, v("backfill"));
        store.band(heavy).put(k("c"), 7, v("heavy"));
        store.flushCache();

        // Then: each band shows only its own records, under keys without a prefix
        assertThat(scanAll()).containsExactly("default");
        List<ScheduleStore.Entry> backfilled = new ArrayList<>();
        store.band(backfill).scan(ALL_FROM, ALL_TO, backfilled::add);
        assertThat(values(backfilled)).containsExactly("backfill");
        assertThat(backfilled.get(0).scheduleKey()).isEqualTo(key(5, "b"));

        // And: a store opened again over the same records finds both bands, and releases from one band stay in it
        ScheduleStore reopened = new ScheduleStore(inner, 100, Long.MAX_VALUE, MAX_STORED);
        assertThat(reopened.storedBands()).containsExactlyInAnyOrder(backfill, heavy);
        List<ScheduleStore.Entry> heavyEntries = new ArrayList<>();
        reopened.band(heavy).scan(ALL_FROM, ALL_TO, heavyEntries::add);
        reopened.band(heavy).release(heavyEntries.get(0));
        reopened.flushCache();
        assertThat(reopened.storedBands()).containsExactly(backfill);
        assertThat(inner.approximateNumEntries()).isEqualTo(2);
    }

    @Test
    void shouldCountABandsPrefixInWhatTheChangelogMustTake() {
        // Given: a record that fits a segment of its own in the default band to the byte
        byte[] key = k("a");
        int fits = 0;
        int tooLarge = (int) MAX_STORED;
        while (tooLarge - fits > 1) {
            int middle = (fits + tooLarge) >>> 1;
            if (store.fitsAlone(key, new byte[middle])) {
                fits = middle;
            } else {
                tooLarge = middle;
            }
        }
        int size = fits;
        byte[] largest = new byte[size];
        assertThat(store.fitsAlone(key, largest)).isTrue();

        // Then: another band's keys carry its prefix too, so the same record no longer fits there
        assertThat(store.band(new ScheduleBand(1, 1.0)).fitsAlone(key, largest)).isFalse();
        assertThat(store.band(new ScheduleBand(1, 1.0)).fitsAlone(key, new byte[size - ScheduleBand.PREFIX_LENGTH]))
                .isTrue();
    }
}
