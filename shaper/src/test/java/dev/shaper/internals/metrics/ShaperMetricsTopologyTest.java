package dev.shaper.internals.metrics;

import static dev.shaper.testsupport.ShaperDriver.cost;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.RejectReason;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.ShaperDriver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The metrics after scripted runs through the real topology (in a TopologyTestDriver, on its wall clock): each
 * value must match what was sent, queued, released and rejected.
 */
class ShaperMetricsTopologyTest {

    private static double counter(MeterRegistry registry, String name) {
        return registry.get(name).functionCounter().count();
    }

    private static double rejected(MeterRegistry registry, RejectReason reason) {
        return registry.get(ShaperMetrics.REJECTED).tag("reason", reason.name()).counter().count();
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    @Test
    void shouldCountPassedQueuedReleasedAndRejectedRecordsAndTheQueueItHolds() {
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "10",
                ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "3"))) {
            MeterRegistry registry = shaper.metrics().registry();
            // Given: 10/s per key and a queue bound of 3
            // When: five records of key "a" arrive at once, one of key "b", one without key, one with a bad cost
            for (int i = 0; i < 5; i++) {
                shaper.send("a", "a" + i);
            }
            shaper.send("b", "b0");
            shaper.send((String) null, "no-key");
            shaper.send("c", "bad-cost", cost("zero"));

            // Then: "a0" and "b0" pass, three wait, "a4" finds the queue full, two are invalid
            assertThat(counter(registry, ShaperMetrics.PASSED)).isEqualTo(2);
            assertThat(counter(registry, ShaperMetrics.QUEUED)).isEqualTo(3);
            assertThat(counter(registry, ShaperMetrics.RELEASED)).isZero();
            assertThat(rejected(registry, RejectReason.QUEUE_FULL)).isEqualTo(1);
            assertThat(rejected(registry, RejectReason.INVALID_KEY)).isEqualTo(1);
            assertThat(rejected(registry, RejectReason.INVALID_COST)).isEqualTo(1);
            assertThat(rejected(registry, RejectReason.DELAY_EXCEEDED)).isZero();
            assertThat(gauge(registry, ShaperMetrics.QUEUE_RECORDS)).isEqualTo(3);
            assertThat(gauge(registry, ShaperMetrics.QUEUE_BYTES)).isPositive();
            assertThat(shaper.readShaped()).hasSize(2);
            assertThat(shaper.readRejected()).hasSize(3);

            // When: one second passes, tick by tick
            for (int tick = 0; tick < 10; tick++) {
                shaper.advance(Duration.ofMillis(100));
            }

            // Then: the three were released 100, 200 and 300 ms after they queued, and the queue is empty
            assertThat(shaper.readShaped()).hasSize(3);
            assertThat(counter(registry, ShaperMetrics.RELEASED)).isEqualTo(3);
            Timer delay = registry.get(ShaperMetrics.QUEUE_DELAY).timer();
            assertThat(delay.count()).isEqualTo(3);
            assertThat(delay.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100 + 200 + 300);
            assertThat(delay.max(TimeUnit.MILLISECONDS)).isEqualTo(300);
            assertThat(gauge(registry, ShaperMetrics.QUEUE_RECORDS)).isZero();
            assertThat(gauge(registry, ShaperMetrics.QUEUE_BYTES)).isZero();

            // And: once that second is complete, the release rate counts its 5 records over the 10-second window
            shaper.advance(Duration.ofSeconds(1));
            assertThat(gauge(registry, ShaperMetrics.RELEASE_RATE)).isEqualTo(0.5);
            // And: ten seconds later they have left the window
            shaper.advance(Duration.ofSeconds(10));
            assertThat(gauge(registry, ShaperMetrics.RELEASE_RATE)).isZero();
        }
    }

    @Test
    void shouldCountTheTimeReleaseTicksCameLaterThanRoutinely() {
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1",
                ShaperConfig.SHAPING_TICK_MS_CONFIG, "100"))) {
            MeterRegistry registry = shaper.metrics().registry();
            // Given: a key waiting at 1/s, ticks every 100 ms on time for 2 s (past the task's start-up)
            for (int i = 0; i < 10; i++) {
                shaper.send("a", "a" + i);
            }
            for (int tick = 0; tick < 20; tick++) {
                shaper.advance(Duration.ofMillis(100));
            }
            assertThat(counter(registry, ShaperMetrics.RELEASE_STALLED)).isZero();

            // When: the stream thread stalls: the next tick comes 700 ms after the last, then they are on time again
            shaper.advance(Duration.ofMillis(100));
            shaper.stall(Duration.ofMillis(700));
            for (int tick = 0; tick < 5; tick++) {
                shaper.advance(Duration.ofMillis(100));
            }

            // Then: of the 600 ms it came late, what the release does not make up at once (it serves up to 100 ms
            // at once: twice the tick less the tick) is counted, once
            assertThat(counter(registry, ShaperMetrics.RELEASE_STALLED)).isCloseTo(0.5, within(1e-9));
        }
    }

    @Test
    void shouldCountDelayExceededRejections() {
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1",
                ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, "1500"))) {
            MeterRegistry registry = shaper.metrics().registry();
            // Given: 1/s and at most 1.5 s of wait; when: three records at once
            shaper.send("k", "0");
            shaper.send("k", "1");
            shaper.send("k", "2");
            // Then: the third would wait 2 s
            assertThat(counter(registry, ShaperMetrics.PASSED)).isEqualTo(1);
            assertThat(counter(registry, ShaperMetrics.QUEUED)).isEqualTo(1);
            assertThat(rejected(registry, RejectReason.DELAY_EXCEEDED)).isEqualTo(1);
        }
    }

    @Test
    void shouldCountRateLimitedRecordsAndShowTheLocalBackend() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        try (AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT,
                Duration.ofMillis(100), Duration.ofSeconds(1), () -> 1, new ManualScheduler(), nanos::get);
             ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1000000",
                     ShaperConfig.ADMISSION_RATE_CONFIG, "2", ShaperConfig.ADMISSION_BURST_CONFIG, "2"), null,
                     admission)) {
            MeterRegistry registry = shaper.metrics().registry();
            shaper.metrics().bindAdmission(admission);
            // Given: an admission bucket of 2 tokens; when: five records at once
            for (int i = 0; i < 5; i++) {
                shaper.send("k", "v" + i);
            }
            // Then: two are admitted and pass, three are rate limited
            assertThat(counter(registry, ShaperMetrics.PASSED)).isEqualTo(2);
            assertThat(rejected(registry, RejectReason.RATE_LIMITED)).isEqualTo(3);
            // And: without Redis the local backend is the one in use, and nothing switched
            assertThat(registry.get(ShaperMetrics.ADMISSION_BACKEND).tag("backend", "local").gauge().value())
                    .isEqualTo(1);
            assertThat(registry.get(ShaperMetrics.ADMISSION_BACKEND).tag("backend", "redis").gauge().value())
                    .isZero();
            assertThat(registry.get(ShaperMetrics.ADMISSION_SWITCHES).tag("to", "local").functionCounter().count())
                    .isZero();
        }
    }

    @Test
    void shouldPublishTheKeyStatesKeptInMemoryAndTheirBound() {
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "10",
                ShaperConfig.STATE_CACHE_MAX_KEYS_CONFIG, "3"))) {
            MeterRegistry registry = shaper.metrics().registry();
            // Given: room for three key states; When: five keys pass (each state matters for 100 ms after)
            for (int i = 0; i < 5; i++) {
                shaper.send("key-" + i, "v");
            }
            // Then: the gauges show the bound and the states kept, which the commits after each record held to it
            assertThat(gauge(registry, ShaperMetrics.STATE_CACHE_MAX_KEYS)).isEqualTo(3);
            assertThat(gauge(registry, ShaperMetrics.STATE_CACHE_KEYS)).isEqualTo(3);
        }
    }
}
