package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.ShaperDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * The wait bounds of the shaper as a whole: {@code max.delay.ms} holds behind the total rate's backlog too, a
 * queued record is never released later than its bound, and one task's queues hold a bounded number of records.
 */
class BoundedWaitsTopologyTest {

    private static final Duration TICK = Duration.ofMillis(100);

    private static Map<String, String> settings(double rate, long maxDelayMs) {
        Map<String, String> settings = new HashMap<>();
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(rate));
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, Long.toString(maxDelayMs));
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(TICK.toMillis()));
        return settings;
    }

    private static List<TestRecord<byte[], byte[]>> runFor(ShaperDriver shaper, Duration duration) {
        List<TestRecord<byte[], byte[]>> shaped = new ArrayList<>(shaper.readShaped());
        for (long t = 0; t < duration.toMillis(); t += TICK.toMillis()) {
            shaper.advance(TICK);
            shaped.addAll(shaper.readShaped());
        }
        return shaped;
    }

    @Test
    void shouldRejectAtOnceARecordThatArrivesOlderThanItsBound() {
        // Given: 10/s per key, a wait bound of 5 s counted from the records' timestamps (the default)
        try (ShaperDriver shaper = ShaperDriver.start(settings(10, 5_000))) {
            long now = shaper.now().toEpochMilli();

            // When: a record stamped 6 s ago arrives (the shaper lagged its input), then a fresh one of the same key
            shaper.send("k", "late", now - 6_000);
            shaper.send("k", "fresh", now);

            // Then: the late one is refused at once, with a retry-after (a retry now would pass) and why; the fresh
            // one passes, its key untouched by the late one
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).hasSize(1);
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("DELAY_EXCEEDED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("1");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("arrived 6000 ms after its timestamp",
                    "max.delay.ms of 5000 ms", ShaperConfig.SHAPING_MAX_DELAY_FROM_CONFIG);
            assertThat(shaper.readShaped()).extracting(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
                    .containsExactly("fresh");
        }
    }

    @Test
    void shouldCountWhatARecordWaitedBeforeItArrivedAgainstItsBound() {
        // Given: 1/s per key, a wait bound of 5 s; a backlog of 3 s on the key
        try (ShaperDriver shaper = ShaperDriver.start(settings(1, 5_000))) {
            long now = shaper.now().toEpochMilli();
            for (int i = 0; i < 4; i++) {
                shaper.send("k", "v" + i, now);
            }

            // When: a record stamped 2.5 s ago arrives: 4 s of wait here, 6.5 s in all
            shaper.send("k", "lagged", now - 2_500);

            // Then: refused; the same with the wait counted from arrival is queued
            assertThat(shaper.readRejected()).hasSize(1);
        }
        Map<String, String> fromArrival = settings(1, 5_000);
        fromArrival.put(ShaperConfig.SHAPING_MAX_DELAY_FROM_CONFIG, ShaperConfig.MAX_DELAY_FROM_ARRIVAL);
        try (ShaperDriver shaper = ShaperDriver.start(fromArrival)) {
            long now = shaper.now().toEpochMilli();
            for (int i = 0; i < 4; i++) {
                shaper.send("k", "v" + i, now);
            }
            shaper.send("k", "lagged", now - 2_500);
            assertThat(shaper.readRejected()).isEmpty();
            assertThat(runFor(shaper, Duration.ofSeconds(5))).hasSize(5);
        }
    }

    @Test
    void shouldRefuseAtArrivalWhatWouldWaitPastMaxDelayBehindTheTotalRate() {
        // Given: a key far faster (1,000/s) than the total rate (10/s), and a wait bound of 1 s
        Map<String, String> settings = settings(1_000, 1_000);
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "10");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            // When: 30 records arrive at once
            for (int i = 0; i < 30; i++) {
                shaper.send("k", "v" + i);
            }
            List<TestRecord<byte[], byte[]>> shaped = runFor(shaper, Duration.ofSeconds(3));
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();

            // Then: the first passes, ten wait (up to 1 s behind the total rate), the rest are refused at once
            assertThat(shaped).hasSize(11);
            assertThat(rejected).hasSize(19);
            assertThat(rejected).allSatisfy(r -> {
                assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("DELAY_EXCEEDED");
                assertThat(header(r, ShaperHeaders.DETAIL)).contains("behind the total rate's backlog");
                assertThat(Long.parseLong(header(r, ShaperHeaders.RETRY_AFTER_MS))).isPositive();
            });
            // And: no record waited longer than its bound plus a tick
            assertThat(shaped).allSatisfy(r -> {
                String queuedMs = header(r, ShaperHeaders.QUEUED_MS);
                assertThat(queuedMs == null ? 0 : Long.parseLong(queuedMs)).isLessThanOrEqualTo(1_100);
            });
        }
    }

    @Test
    void shouldPublishOnceATickHowLongTheTasksQueuedUnitsNeedAtItsPartOfTheTotalRate() {
        // Given: a key far faster (1,000/s) than the total rate (10/s)
        Map<String, String> settings = settings(1_000, 60_000);
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "10");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            // When: 21 records arrive at once (one passes, 20 wait behind the total rate), and a tick passes
            for (int i = 0; i < 21; i++) {
                shaper.send("k", "v" + i);
            }
            shaper.advance(TICK);

            // Then: the task's backlog is what the total rate needs for them: about 2 s, less what a tick released
            Long backlogNanos = shaper.backlogs().backlogNanos(0);
            assertThat(backlogNanos).isNotNull();
            assertThat(backlogNanos / 1_000_000L).isBetween(1_900L, 2_100L);

            // And: a second later, a second less
            runFor(shaper, Duration.ofSeconds(1));
            assertThat(shaper.backlogs().backlogNanos(0) / 1_000_000L).isBetween(900L, 1_100L);
        }
    }

    @Test
    void shouldRejectAQueuedRecordThatWaitedPastMaxDelayInsteadOfReleasingItLate() {
        // Given: a key at 1/s with a wait bound of 2 s; its first record passes, two wait (due at 1 s and 2 s)
        try (ShaperDriver shaper = ShaperDriver.start(settings(1, 2_000))) {
            shaper.send("k", "first");
            shaper.send("k", "second");
            shaper.send("k", "third");
            assertThat(shaper.readShaped()).hasSize(1);
            assertThat(shaper.readRejected()).isEmpty();

            // When: the release stalls for 10 s (the queues then resume at their rate, from where they were)
            shaper.stall(Duration.ofSeconds(10));
            List<TestRecord<byte[], byte[]>> shaped = runFor(shaper, Duration.ofSeconds(3));

            // Then: neither waiting record is released late; both are rejected as expired
            assertThat(shaped).isEmpty();
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> text(r.value())).containsExactly("second", "third");
            assertThat(rejected).allSatisfy(r -> {
                assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("DELAY_EXCEEDED");
                assertThat(header(r, ShaperHeaders.DETAIL)).contains("expired while queued");
                // How long it waited before it was taken out: past its 2 s, within the 10 s stall and a tick
                assertThat(Long.parseLong(header(r, ShaperHeaders.QUEUED_MS))).isBetween(2_000L, 13_000L);
            });
            assertThat(shaper.metrics().registry().get("shaper.queue.records").gauge().value()).isZero();
            assertThat(shaper.metrics().registry().get("shaper.records.expired").counter().count()).isEqualTo(2);

            // And: the key's schedule did not move for them: its next record waits its one interval only
            shaper.send("k", "fourth");
            assertThat(runFor(shaper, Duration.ofSeconds(2))).extracting(r -> text(r.value()))
                    .containsExactly("fourth");
        }
    }

    @Test
    void shouldBoundTheRecordsOneTaskQueuesAllKeysTogether() {
        // Given: at most 3 records queued per task, keys at 1/s
        Map<String, String> settings = settings(1, 60_000);
        settings.put(ShaperConfig.SHAPING_MAX_TASK_QUEUE_CONFIG, "3");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            // When: five keys each send two records (the first of each passes, the second would wait)
            for (String key : List.of("a", "b", "c", "d", "e")) {
                shaper.send(key, key + "1");
                shaper.send(key, key + "2");
            }

            // Then: three wait, the last two are refused as QUEUE_FULL, naming the setting
            assertThat(shaper.readShaped()).hasSize(5);
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).extracting(r -> text(r.value())).containsExactly("d2", "e2");
            assertThat(rejected).allSatisfy(r -> {
                assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("QUEUE_FULL");
                assertThat(header(r, ShaperHeaders.DETAIL)).contains("shaper.shaping.max.task.queue");
            });

            // And: once the queues drained, records wait again
            assertThat(runFor(shaper, Duration.ofSeconds(2))).extracting(r -> text(r.value()))
                    .containsExactly("a2", "b2", "c2");
            shaper.send("a", "a3");
            shaper.send("a", "a4");
            assertThat(shaper.readRejected()).isEmpty();
        }
    }
}
