package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.cost;
import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.rules.KeyMatcher;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.store.KeyStateStore;
import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The topology's behaviour, with wall-clock time advanced by the test. Every driver starts at
 * {@link ShaperDriver#START} (t = 0); the punctuator fires every tick from then on.
 */
class ShaperTopologyTest {

    private static final Duration TICK = Duration.ofMillis(100);

    private static Map<String, String> settings(double rate, int maxQueue, long maxDelayMs) {
        return Map.of(
                ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(rate),
                ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, Integer.toString(maxQueue),
                ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, Long.toString(maxDelayMs),
                ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(TICK.toMillis()));
    }

    private static List<String> values(List<TestRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    @Test
    void shouldPassRecordsUnchangedAndAtOnceWhenUnderTheRate() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            // Given: a key at 10/s, and records 100 ms apart (exactly the rate)
            for (int i = 0; i < 5; i++) {
                // When
                shaper.send("k", "v" + i, new RecordHeader("trace", ("t" + i).getBytes(StandardCharsets.UTF_8)));
                // Then: each one leaves at once, unchanged, without shaper.queued.ms (it did not wait)
                List<TestRecord<byte[], byte[]>> out = shaper.readShaped();
                assertThat(out).hasSize(1);
                TestRecord<byte[], byte[]> r = out.get(0);
                assertThat(text(r.key())).isEqualTo("k");
                assertThat(text(r.value())).isEqualTo("v" + i);
                assertThat(r.getRecordTime()).isEqualTo(shaper.now());
                assertThat(header(r, "trace")).isEqualTo("t" + i);
                assertThat(header(r, ShaperHeaders.QUEUED_MS)).isNull();
                assertThat(r.headers().lastHeader(ShaperHeaders.RELEASED_MS)).as("off by default").isNull();
                shaper.advance(TICK); // t = (i + 1) * 100 ms
            }
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    /**
     * A burst of 60 records at t = 0. Records leave at 0, 1/rate, 2/rate, ...: the first at once, the rest
     * when the tick at or after their due time fires. At 1000/s two leave at once, because records of the
     * same millisecond may run one millisecond ahead of schedule.
     */
    @ParameterizedTest(name = "rate {0}/s")
    @CsvSource(delimiter = '|', value = {
        "0.5  | 1 | 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1",
        "2    | 1 | 0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1",
        "3    | 1 | 0,0,0,1,0,0,1,0,0,1,0,0,0,1,0,0,1,0,0,1",
        "10   | 1 | 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
        "25   | 1 | 2,3,2,3,2,3,2,3,2,3,2,3,2,3,2,3,2,3,2,3",
        "100  | 1 | 10,10,10,10,10,9,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
        "1000 | 2 | 58,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"})
    void shouldReleaseExactlyTheRateEachTickWhenRecordsQueue(double rate, int passedAtOnce, String perTick) {
        try (ShaperDriver shaper = ShaperDriver.start(settings(rate, 1_000, 3_600_000))) {
            // Given: a burst of 60 records of one key at t = 0
            for (int i = 0; i < 60; i++) {
                shaper.send("k", "v" + i);
            }
            assertThat(shaper.readShaped()).hasSize(passedAtOnce);

            // When: wall-clock time advances tick by tick
            List<Integer> released = new ArrayList<>();
            for (int tick = 1; tick <= 20; tick++) {
                shaper.advance(TICK); // t = tick * 100 ms
                released.add(shaper.readShaped().size());
            }

            // Then: each tick releases exactly what fell due
            List<Integer> expected = java.util.Arrays.stream(perTick.split(",")).map(Integer::valueOf).toList();
            assertThat(released).isEqualTo(expected);
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldKeepEachKeyInOrderWhenKeysInterleave() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(20, 1_000, 60_000))) {
            // Given: three keys whose records interleave in a burst
            for (int i = 0; i < 30; i++) {
                shaper.send("key-" + (i % 3), "key-" + (i % 3) + ":" + (i / 3));
            }
            // When
            List<TestRecord<byte[], byte[]>> out = new ArrayList<>(shaper.readShaped());
            for (int tick = 0; tick < 10; tick++) {
                shaper.advance(TICK); // t = (tick + 1) * 100 ms
                out.addAll(shaper.readShaped());
            }
            // Then: all 30 left, and every key's sequence numbers are strictly increasing
            assertThat(out).hasSize(30);
            Map<String, List<Integer>> perKey = new java.util.TreeMap<>();
            for (TestRecord<byte[], byte[]> r : out) {
                String[] parts = text(r.value()).split(":");
                assertThat(parts[0]).isEqualTo(text(r.key()));
                perKey.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
            }
            perKey.values().forEach(seq -> assertThat(seq).isSorted().doesNotHaveDuplicates().hasSize(10));
        }
    }

    @Test
    void shouldRejectWithQueueFullAndTheTimeUntilTheHeadLeavesWhenTheQueueIsFull() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 3, 60_000))) {
            // Given: at 10/s, one record passes and three queue (due at 100, 200 and 300 ms)
            for (int i = 0; i < 4; i++) {
                shaper.send("k", "v" + i);
            }
            // When: a fifth arrives at t = 0
            shaper.send("k", "v4");
            // Then: it is rejected; the head of the queue leaves at 100 ms
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("v4");
            TestRecord<byte[], byte[]> r = rejected.get(0);
            assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("QUEUE_FULL");
            assertThat(header(r, ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("100");
            assertThat(header(r, ShaperHeaders.DETAIL)).contains("3 records");
            assertThat(header(r, ShaperHeaders.SOURCE_TOPIC)).isEqualTo("shaper-input");
            assertThat(text(r.key())).isEqualTo("k");
            assertThat(r.getRecordTime()).isEqualTo(ShaperDriver.START);

            // And: once the head has left, there is room again
            shaper.advance(TICK); // t = 100 ms
            shaper.send("k", "v5");
            assertThat(shaper.readRejected()).isEmpty();
            assertThat(values(shaper.readShaped())).containsExactly("v0", "v1");
        }
    }

    @Test
    void shouldRejectWithDelayExceededAndTheExcessAsRetryAfterWhenTheWaitIsTooLong() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 1_000, 250))) {
            // Given: at 10/s with at most 250 ms of delay, records due at 0, 100, 200 ms are fine
            for (int i = 0; i < 3; i++) {
                shaper.send("k", "v" + i);
            }
            // When: the next two would be due at 300 and (it being refused) again 300 ms
            shaper.send("k", "v3");
            shaper.advance(Duration.ofMillis(20)); // t = 20 ms: still due at 300, a wait of 280 ms
            shaper.send("k", "v4");

            // Then: both are refused; a retry after the excess would fit
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("v3", "v4");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("DELAY_EXCEEDED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("50");
            assertThat(header(rejected.get(1), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("30");

            // And: after that retry-after, the same record is accepted
            shaper.advance(Duration.ofMillis(30)); // t = 50 ms: due 300, a wait of 250 ms
            shaper.send("k", "v4-retry");
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldShareTheTotalRateInProportionToKeyRatesWhenTheCapBinds() {
        // Given: key "fast" at 30/s and "slow" at 10/s, but only 20/s in total
        RuleBook rules = new RuleBook(new ShapingRule(10, 10_000, 3_600_000), List.of(
                new KeyRule(new KeyMatcher.Exact("fast"), new ShapingRule(30, 10_000, 3_600_000))));
        Map<String, String> s = new java.util.HashMap<>(settings(10, 10_000, 3_600_000));
        s.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "20");
        try (ShaperDriver shaper = ShaperDriver.start(s, rules, 1)) {
            for (int i = 0; i < 400; i++) {
                shaper.send("fast", "f" + i);
                shaper.send("slow", "s" + i);
            }
            shaper.readShaped();

            // When: ten seconds pass
            List<TestRecord<byte[], byte[]>> out = new ArrayList<>();
            for (int tick = 0; tick < 100; tick++) {
                shaper.advance(TICK); // t = (tick + 1) * 100 ms
                out.addAll(shaper.readShaped());
            }

            // Then: 20/s in total over 10 s (one tick of slack), split 3:1 like the keys' rates
            long fast = out.stream().filter(r -> text(r.key()).equals("fast")).count();
            long slow = out.size() - fast;
            assertThat(out.size()).isBetween(199, 202);
            assertThat(fast).isBetween(148L, 152L);
            assertThat(slow).isBetween(48L, 52L);
        }
    }

    @Test
    void shouldSplitTheTotalRateAcrossInputPartitions() {
        Map<String, String> s = new java.util.HashMap<>(settings(1_000, 10_000, 3_600_000));
        s.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "40");
        // Given: a total of 40/s over 4 input partitions: 10/s for this task
        try (ShaperDriver shaper = ShaperDriver.start(s, null, 4)) {
            for (int i = 0; i < 100; i++) {
                shaper.send("k" + (i % 10), "v" + i);
            }
            List<TestRecord<byte[], byte[]>> out = new ArrayList<>(shaper.readShaped());
            // When: two seconds pass
            for (int tick = 0; tick < 20; tick++) {
                shaper.advance(TICK); // t = (tick + 1) * 100 ms
                out.addAll(shaper.readShaped());
            }
            // Then: 10/s, the first one at once
            assertThat(out).hasSize(21);
        }
    }

    @Test
    void shouldApplyTheFirstMatchingRuleAndTheDefaultsOtherwise() {
        ShapingRule defaults = new ShapingRule(1, 0, 60_000);
        RuleBook rules = new RuleBook(defaults, List.of(
                new KeyRule(new KeyMatcher.Exact("vip"), new ShapingRule(1, 5, 60_000)),
                new KeyRule(new KeyMatcher.Prefix("bulk-"), new ShapingRule(1, 2, 60_000)),
                new KeyRule(KeyMatcher.Glob.of("t?-*"), new ShapingRule(1, 1, 60_000)),
                new KeyRule(new KeyMatcher.Regex(Pattern.compile("[0-9]+")), new ShapingRule(1, 3, 60_000)),
                new KeyRule(new KeyMatcher.Prefix("v"), new ShapingRule(1, 100, 60_000))));
        try (ShaperDriver shaper = ShaperDriver.start(settings(1, 0, 60_000), rules, 1)) {
            // Given/When: ten records of each key at once, at 1/s: one passes, max.queue wait, the rest are refused
            for (String key : List.of("vip", "bulk-1", "t1-x", "42", "other", "vipx")) {
                for (int i = 0; i < 10; i++) {
                    shaper.send(key, key);
                }
            }
            // Then: the queue bound of the first matching rule decides how many are kept
            Map<String, Long> rejected = new java.util.TreeMap<>();
            shaper.readRejected().forEach(r -> rejected.merge(text(r.key()), 1L, Long::sum));
            assertThat(rejected).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "vip", 4L, "bulk-1", 7L, "t1-x", 8L, "42", 6L, "other", 9L));
        }
    }

    @Test
    void shouldSpaceRecordsByTheirCostWhenTheCostHeaderIsSet() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            // Given: at 10 units/s, a record of cost 5 leaves at once
            shaper.send("k", "heavy", cost("5"));
            // When: a record of cost 1 follows at once
            shaper.send("k", "light");
            // Then: it waits the 500 ms that the heavy one used
            assertThat(values(shaper.readShaped())).containsExactly("heavy");
            for (int tick = 1; tick <= 4; tick++) {
                shaper.advance(TICK); // t = tick * 100 ms
                assertThat(shaper.readShaped()).isEmpty();
            }
            shaper.advance(TICK); // t = 500 ms
            List<TestRecord<byte[], byte[]>> out = shaper.readShaped();
            assertThat(values(out)).containsExactly("light");
            assertThat(header(out.get(0), ShaperHeaders.QUEUED_MS)).isEqualTo("500");
        }
    }

    @Test
    void shouldDropAReleaseTimeFromUpstreamWhenTheReleasedHeaderIsOff() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            // Given: records that an earlier stage stamped with its own release time
            RecordHeader upstream = new RecordHeader(ShaperHeaders.RELEASED_MS, "42".getBytes(StandardCharsets.UTF_8));
            // When: one passes at once and one waits
            shaper.send("k", "first", upstream);
            shaper.send("k", "second", upstream);
            shaper.advance(TICK);
            // Then: neither carries that time, which is not when this shaper released it
            List<TestRecord<byte[], byte[]>> out = shaper.readShaped();
            assertThat(values(out)).containsExactly("first", "second");
            assertThat(out).allSatisfy(r -> assertThat(r.headers().lastHeader(ShaperHeaders.RELEASED_MS)).isNull());
        }
    }

    @Test
    void shouldStampTheReleaseTimeOnPassedAndReleasedRecordsWhenTheReleasedHeaderIsOn() {
        Map<String, String> s = new java.util.HashMap<>(settings(10, 100, 60_000));
        s.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, "true");
        try (ShaperDriver shaper = ShaperDriver.start(s)) {
            // Given: at 10/s, a record that passes at once and one that must wait until 100 ms
            shaper.send("k", "first");
            shaper.advance(Duration.ofMillis(30));
            shaper.send("k", "second");
            // Then: the first carries its arrival time, the second the tick that released it: ticks come every
            // 50 ms (half the key's interval) from the moment it started waiting, at 80 and 130 ms
            List<TestRecord<byte[], byte[]>> passed = shaper.readShaped();
            assertThat(values(passed)).containsExactly("first");
            assertThat(header(passed.get(0), ShaperHeaders.RELEASED_MS))
                    .isEqualTo(Long.toString(ShaperDriver.START.toEpochMilli()));
            shaper.advance(Duration.ofMillis(70)); // t = 100 ms: due, but the next tick is at 130 ms
            assertThat(shaper.readShaped()).isEmpty();
            shaper.advance(Duration.ofMillis(30)); // t = 130 ms
            List<TestRecord<byte[], byte[]>> released = shaper.readShaped();
            assertThat(values(released)).containsExactly("second");
            assertThat(header(released.get(0), ShaperHeaders.QUEUED_MS)).isEqualTo("100");
            assertThat(header(released.get(0), ShaperHeaders.RELEASED_MS))
                    .isEqualTo(Long.toString(ShaperDriver.START.toEpochMilli() + 130));
        }
    }

    @Test
    void shouldRejectARecordWithoutKeyAsInvalidKeyAndKeepRunning() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            shaper.send((String) null, "no-key");
            shaper.send("k", "fine");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("no-key");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("INVALID_KEY");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isNull();
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("no key");
            assertThat(values(shaper.readShaped())).containsExactly("fine");
        }
    }

    @ParameterizedTest(name = "cost \"{0}\"")
    @ValueSource(strings = {"abc", "0", "-3", "", " ", "1.5", "1000001", "99999999999999999999"})
    void shouldRejectAnUnusableCostAsInvalidCostAndKeepRunning(String badCost) {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            shaper.send("k", "bad", cost(badCost));
            shaper.send("k", "good", cost("1"));
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("bad");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("INVALID_COST");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains(ShaperHeaders.COST);
            assertThat(values(shaper.readShaped())).containsExactly("good");
        }
    }

    @Test
    void shouldRejectANullCostHeaderValueAsInvalidCost() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            shaper.send("k", "bad", cost(null));
            assertThat(header(shaper.readRejected().get(0), ShaperHeaders.REASON)).isEqualTo("INVALID_COST");
        }
    }

    @Test
    void shouldShapeEmptyKeysAndNullValuesLikeAnyOther() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            shaper.send(new byte[0], "empty-key-1");
            shaper.send(new byte[0], "empty-key-2");
            assertThat(values(shaper.readShaped())).containsExactly("empty-key-1");
            shaper.advance(TICK); // t = 100 ms
            assertThat(values(shaper.readShaped())).containsExactly("empty-key-2");
        }
    }

    @Test
    void shouldNeverLetTheCatchUpCapSlowTheRateBelowOneTick() {
        Map<String, String> s = new java.util.HashMap<>(settings(10, 1_000, 3_600_000));
        s.put(ShaperConfig.SHAPING_CATCHUP_MAX_MS_CONFIG, "1");
        try (ShaperDriver shaper = ShaperDriver.start(s)) {
            // Given: a cap below the tick, which counts as one tick
            for (int i = 0; i < 11; i++) {
                shaper.send("k", "v" + i);
            }
            shaper.readShaped();
            // When/Then: on-time ticks still release the full rate
            for (int tick = 0; tick < 10; tick++) {
                shaper.advance(TICK); // t = (tick + 1) * 100 ms
                assertThat(shaper.readShaped()).hasSize(1);
            }
        }
    }

    @Test
    void shouldCountQueuedRecordsUnitsAndBytesAndReturnToZeroOnRelease() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            // Given: one record passes, two queue (costs 1 and 3)
            shaper.send("k", "passes");
            shaper.send("k", "first", cost("1"));
            shaper.send("k", "second", cost("3"));
            KeyStateStore states = shaper.store(ShaperTopology.KEY_STATE_STORE);
            var queued = states.get("k".getBytes(StandardCharsets.UTF_8));
            assertThat(queued.queuedRecords()).isEqualTo(2);
            assertThat(queued.queuedUnits()).isEqualTo(4);
            assertThat(queued.queuedBytes()).isGreaterThan(2L * "second".length());

            // When: both are released (at 100 and 200 ms)
            shaper.advance(TICK); // t = 100 ms
            shaper.advance(TICK); // t = 200 ms
            assertThat(values(shaper.readShaped())).containsExactly("passes", "first", "second");

            // Then: nothing is counted as queued any more
            var after = states.get("k".getBytes(StandardCharsets.UTF_8));
            assertThat(after.queuedRecords()).isZero();
            assertThat(after.queuedUnits()).isZero();
            assertThat(after.queuedBytes()).isZero();
        }
    }

    @Test
    void shouldForgetTheStateOfIdleKeys() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 100, 60_000))) {
            // Given: 500 distinct keys, each with one record queued for a moment
            for (int i = 0; i < 500; i++) {
                shaper.send("key-" + i, "a");
                shaper.send("key-" + i, "b");
            }
            KeyStateStore states = shaper.store(ShaperTopology.KEY_STATE_STORE);
            assertThat(states.storedKeyCount()).isEqualTo(500);

            // When: all queues drain and the keys stay idle
            shaper.advance(TICK); // t = 100 ms: everything released
            assertThat(shaper.readShaped()).hasSize(1_000);
            shaper.advance(TICK); // t = 200 ms: the states are idle now, the eviction sweep removes them

            // Then: no state is left
            assertThat(states.storedKeyCount()).isZero();
        }
    }
}
