package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-record choices: {@code shaper.on.limit: reject} turns a wait into a rejection with its retry-after, and
 * {@code shaper.deadline.ms} rejects a record that would leave, or is still queued, after its deadline; a bad value of
 * either is rejected with its own reason, naming the header and what is expected.
 */
class RecordChoicesTopologyTest {

    /** 10/s per key: a second record of a key waits 100 ms. */
    private static final Map<String, String> SETTINGS = Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "10",
            ShaperConfig.SHAPING_TICK_MS_CONFIG, "10");

    private static Header choice(String name, String value) {
        return new RecordHeader(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static Header onLimit(String value) {
        return choice(ShaperHeaders.ON_LIMIT, value);
    }

    private static Header deadline(long epochMs) {
        return choice(ShaperHeaders.DEADLINE_MS, Long.toString(epochMs));
    }

    private static long nowMs(ShaperDriver shaper) {
        return shaper.now().toEpochMilli();
    }

    private static List<String> values(List<TestRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    @Test
    void shouldRejectARecordThatWouldWaitWithItsRetryAfterAndLeaveTheKeysQueueAsItWas() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            // Given: a record that passes, even with the header
            shaper.send("k", "first", onLimit("reject"));
            assertThat(values(shaper.readShaped())).containsExactly("first");

            // When: the next one would wait 100 ms
            shaper.send("k", "second", onLimit("reject"));

            // Then: rejected at once, with the wait as its retry-after
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).hasSize(1);
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("100");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("shaper.on.limit: reject");

            // And: it took no slot of the key: a record that queues gets the slot at 100 ms, and a retry then passes
            shaper.send("k", "third");
            shaper.advance(Duration.ofMillis(99));
            assertThat(shaper.readShaped()).isEmpty();
            shaper.advance(Duration.ofMillis(11));
            assertThat(values(shaper.readShaped())).containsExactly("third");
        }
    }

    @Test
    void shouldQueueWithTheDefaultChoiceSpelledOut() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "first", onLimit("queue"));
            shaper.send("k", "second", onLimit("queue"));
            shaper.advance(Duration.ofMillis(120));

            assertThat(values(shaper.readShaped())).containsExactly("first", "second");
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldRejectWhenTheTotalRateWouldHoldTheRecordBack() {
        Map<String, String> settings = Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1000",
                ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "10", ShaperConfig.SHAPING_TICK_MS_CONFIG, "10");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            shaper.send("a", "a1");
            shaper.send("b", "b1", onLimit("reject"));

            assertThat(values(shaper.readShaped())).containsExactly("a1");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON)).containsExactly("RATE_LIMITED");
            assertThat(Long.parseLong(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS))).isBetween(1L, 100L);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "REJECT", "Reject", "drop", " reject", "reject ", "queue,reject", "1"})
    void shouldRejectABadOnLimitNamingTheHeaderAndTheChoices(String bad) {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "v", onLimit(bad));

            assertInvalid(shaper, "INVALID_ON_LIMIT", "shaper.on.limit is \"" + bad + "\"; expected queue or reject");
        }
    }

    @Test
    void shouldRejectAnOnLimitWithoutAValueOrTwice() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "null", onLimit(null));
            shaper.send("k", "twice", onLimit("queue"), onLimit("queue"));

            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("INVALID_ON_LIMIT", "INVALID_ON_LIMIT");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("shaper.on.limit is null");
            assertThat(header(rejected.get(1), ShaperHeaders.DETAIL)).contains("2 shaper.on.limit headers");
            assertThat(rejected).allSatisfy(r -> assertThat(header(r, ShaperHeaders.RETRY_AFTER_MS)).isNull());
            assertThat(shaper.readShaped()).isEmpty();
        }
    }

    @Test
    void shouldReleaseARecordWhoseReleaseIsDueByItsDeadline() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "first", deadline(nowMs(shaper)));
            shaper.send("k", "second", deadline(nowMs(shaper) + 100));
            shaper.advance(Duration.ofMillis(110));

            assertThat(values(shaper.readShaped())).containsExactly("first", "second");
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldRejectAtArrivalARecordThatWouldBeReleasedAfterItsDeadline() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "first");
            shaper.send("k", "late", deadline(nowMs(shaper) + 99)); // its slot is at 100 ms

            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON)).containsExactly("DEADLINE_EXCEEDED");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("would be released in 100 ms",
                    "after its deadline");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isNull();

            // The key's queue is as it was: the next record gets the slot at 100 ms
            shaper.send("k", "next");
            shaper.advance(Duration.ofMillis(110));
            assertThat(values(shaper.readShaped())).containsExactly("first", "next");
        }
    }

    @Test
    void shouldRejectARecordWhoseDeadlineHasPassedBeforeAnythingElse() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "stale", deadline(nowMs(shaper) - 1));

            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON)).containsExactly("DEADLINE_EXCEEDED");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("arrived 1 ms after its deadline");
            // It took no slot: the next record passes at once
            shaper.send("k", "fresh");
            assertThat(values(shaper.readShaped())).containsExactly("fresh");
        }
    }

    @Test
    void shouldRejectARecordStillQueuedAtItsDeadlineInsteadOfReleasingIt() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            // Given: a record due at 100 ms with a deadline at 150 ms
            shaper.send("k", "first");
            shaper.send("k", "second", deadline(nowMs(shaper) + 150));
            assertThat(shaper.readRejected()).isEmpty();

            // When: the release stalls past the deadline (a long GC pause, a slow commit)
            shaper.stall(Duration.ofMillis(400));
            shaper.advance(Duration.ofMillis(20));

            // Then: the record goes to the rejected topic, not late to the output
            assertThat(values(shaper.readShaped())).containsExactly("first");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON)).containsExactly("DEADLINE_EXCEEDED");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("still queued at its deadline");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isNull();
        }
    }

    @Test
    void shouldRejectTheDeadlineBeforeTheWaitWhenBothChoicesApply() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "first");
            shaper.send("k", "both", onLimit("reject"), deadline(nowMs(shaper) + 50));

            assertThat(shaper.readRejected()).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("DEADLINE_EXCEEDED");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "soon", "-1767225600000", "+1767225600000", "1767225600000.0", "1.7e12",
            " 1767225600000", "1767225600000 ", "1767225600", "0", "999999999999", "253402300800000",
            "99999999999999999999999", "１７６７２２５６０００００"})
    void shouldRejectABadDeadlineNamingTheHeaderAndTheExpectedValue(String bad) {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "v", choice(ShaperHeaders.DEADLINE_MS, bad));

            TestRecord<byte[], byte[]> rejected = assertInvalid(shaper, "INVALID_DEADLINE", "shaper.deadline.ms is ");
            assertThat(header(rejected, ShaperHeaders.DETAIL)).contains(
                    "expected a whole number of epoch milliseconds from 1000000000000 to 253402300799999");
        }
    }

    @Test
    void shouldRejectADeadlineWithoutAValueOrTwice() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            long later = nowMs(shaper) + 10_000;
            shaper.send("k", "null", choice(ShaperHeaders.DEADLINE_MS, null));
            shaper.send("k", "twice", deadline(later), deadline(later));

            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("INVALID_DEADLINE", "INVALID_DEADLINE");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("shaper.deadline.ms is empty");
            assertThat(header(rejected.get(1), ShaperHeaders.DETAIL)).contains("2 shaper.deadline.ms headers");
        }
    }

    @Test
    void shouldPassTheChoicesOnWithTheShapedRecord() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            long later = nowMs(shaper) + 10_000;
            shaper.send("k", "v", onLimit("queue"), deadline(later));

            TestRecord<byte[], byte[]> shaped = shaper.readShaped().get(0);
            assertThat(header(shaped, ShaperHeaders.ON_LIMIT)).isEqualTo("queue");
            assertThat(header(shaped, ShaperHeaders.DEADLINE_MS)).isEqualTo(Long.toString(later));
        }
    }

    private static TestRecord<byte[], byte[]> assertInvalid(ShaperDriver shaper, String reason, String detail) {
        List<TestRecord<byte[], byte[]>> rejected = new ArrayList<>(shaper.readRejected());
        assertThat(rejected).hasSize(1);
        assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo(reason);
        assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains(detail);
        assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isNull();
        assertThat(shaper.readShaped()).isEmpty();
        return rejected.get(0);
    }
}
