package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.limits.TimestampWindow;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Size decisions in the topology, before any send: with the producer's {@code max.request.size} at 10,000 bytes
 * (the topics' limits assumed at the broker default), and the shaper's own headers on input. The real topics'
 * limits are read from a broker in {@code OversizedRecordsIT}.
 */
class RecordSizeTopologyTest {

    private static final Map<String, String> SETTINGS = Map.of(
            "max.request.size", "10000",
            ShaperConfig.SHAPING_RATE_CONFIG, "10",
            ShaperConfig.SHAPING_TICK_MS_CONFIG, "100");

    @Test
    void shouldRejectARecordTheOutputWouldNotTakeWithTheShapersHeadersWithoutItsValue() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            // When: a value just under the limit, which the shaper's headers would push over it
            shaper.send("k", "v".repeat(9_900));

            // Then: rejected before any send, with the limit named, and without the value the rejected topic
            // (same producer limit) would not take with the reason's headers
            assertThat(shaper.readShaped()).isEmpty();
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).hasSize(1);
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RECORD_TOO_LARGE");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL))
                    .contains("more than the 10000 it takes (the producer's max.request.size (10000))");
            assertThat(header(rejected.get(0), ShaperHeaders.OMITTED)).isEqualTo("value");
            assertThat(rejected.get(0).value()).isNull();
            assertThat(text(rejected.get(0).key())).isEqualTo("k");
            assertThat(shaper.metrics().registry().get(dev.shaper.internals.metrics.ShaperMetrics.REJECTED)
                    .tag("reason", "RECORD_TOO_LARGE").counter().count()).isEqualTo(1);

            // And: the key's state is untouched; a record that fits passes at once
            shaper.send("k", "v".repeat(9_000));
            assertThat(shaper.readShaped()).hasSize(1);
        }
    }

    @Test
    void shouldQueueAndReleaseLargeRecordsThatFit() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            for (int i = 0; i < 5; i++) {
                shaper.send("k", i + "v".repeat(9_000));
            }
            assertThat(shaper.readShaped()).hasSize(1);
            for (int tick = 0; tick < 4; tick++) {
                shaper.advance(Duration.ofMillis(100));
            }
            assertThat(shaper.readShaped()).hasSize(4);
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldDropTheShapersOwnHeadersFromInputAndKeepTheOthers() {
        try (ShaperDriver shaper = ShaperDriver.start(SETTINGS)) {
            shaper.send("k", "v", input(ShaperHeaders.REASON, "QUEUE_FULL"), input(ShaperHeaders.DETAIL, "forged"),
                    input(ShaperHeaders.QUEUED_MS, "12345"), input(ShaperHeaders.SOURCE_OFFSET, "7"),
                    input("trace", "t1"));

            TestRecord<byte[], byte[]> shaped = shaper.readShaped().get(0);
            assertThat(header(shaped, ShaperHeaders.REASON)).isNull();
            assertThat(header(shaped, ShaperHeaders.DETAIL)).isNull();
            assertThat(header(shaped, ShaperHeaders.SOURCE_OFFSET)).isNull();
            assertThat(header(shaped, ShaperHeaders.QUEUED_MS)).isNull(); // forged, removed; it did not wait
            assertThat(header(shaped, "trace")).isEqualTo("t1");
        }
    }

    @Test
    void shouldRejectAQueuedRecordThatGrewTooOldForTheOutputTopicWhileItWaited() {
        // Given: an output topic that takes records up to 100 s old, and a key released once every 50 s
        TopicLimits limits = TopicLimits.assumed(1_048_576)
                .withTimes(new TimestampWindow(100_000, Long.MAX_VALUE, "topic shaped's (100 s)"), TimestampWindow.ANY);
        // (the wait counted from arrival: counted from their timestamps, the second would be refused at arrival)
        Map<String, String> settings = Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "0.02",
                ShaperConfig.SHAPING_TICK_MS_CONFIG, "100",
                ShaperConfig.SHAPING_MAX_DELAY_FROM_CONFIG, ShaperConfig.MAX_DELAY_FROM_ARRIVAL);
        try (ShaperDriver shaper = ShaperDriver.start(settings, limits)) {
            // When: two records arrive 49 s old (inside the window with the margin of half of it); the first
            // leaves at once, the second is due 50 s later, when it is 99 s old
            long arrival = shaper.now().toEpochMilli();
            shaper.send("k", "first", arrival - 49_000);
            shaper.send("k", "second", arrival - 49_000);
            assertThat(shaper.readShaped()).hasSize(1);
            for (int tick = 0; tick < 500; tick++) { // the virtual clock moves at most a little per tick
                shaper.advance(Duration.ofMillis(100));
            }

            // Then: the second is rejected on release, with how long it waited but no release time, and without a
            // source (the punctuation has none)
            assertThat(shaper.readShaped()).isEmpty();
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).hasSize(1);
            assertThat(text(rejected.get(0).value())).isEqualTo("second");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("INVALID_TIMESTAMP");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("waited 50000 ms")
                    .contains("topic shaped's (100 s)");
            assertThat(header(rejected.get(0), ShaperHeaders.QUEUED_MS)).isEqualTo("50000");
            assertThat(header(rejected.get(0), ShaperHeaders.RELEASED_MS)).isNull();
            assertThat(header(rejected.get(0), ShaperHeaders.SOURCE_TOPIC)).isNull();
            assertThat(shaper.metrics().registry().get("shaper.queue.records").gauge().value()).isZero();
        }
    }

    private static RecordHeader input(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
