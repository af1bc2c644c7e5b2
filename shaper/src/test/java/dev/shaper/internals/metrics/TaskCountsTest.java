package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The tasks' own counts as the instance's meters show them. */
class TaskCountsTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong wallMs = new AtomicLong(10_000);
    private final ShaperMetrics metrics = new ShaperMetrics(registry, wallMs::get);

    private double count(String name) {
        return registry.get(name).functionCounter().count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private double releaseRate() {
        return gauge(ShaperMetrics.RELEASE_RATE);
    }

    @Test
    void theCountersSumTheTasksAndKeepAClosedTasksCounts() {
        TaskCounts a = metrics.registerTaskCounts(0, 0);
        TaskCounts b = metrics.registerTaskCounts(0, 0);
        a.passed(10_000);
        a.queued(100);
        b.queued(120);
        b.released(10_000, 40, 120);
        assertThat(count(ShaperMetrics.PASSED)).isEqualTo(1);
        assertThat(count(ShaperMetrics.QUEUED)).isEqualTo(2);
        assertThat(count(ShaperMetrics.RELEASED)).isEqualTo(1);
        assertThat(gauge(ShaperMetrics.QUEUE_RECORDS)).isEqualTo(1);
        assertThat(gauge(ShaperMetrics.QUEUE_BYTES)).isEqualTo(100);

        // When: a task closes (a rebalance moved it); then: the counters do not go down
        a.close();
        assertThat(count(ShaperMetrics.PASSED)).isEqualTo(1);
        assertThat(count(ShaperMetrics.QUEUED)).isEqualTo(2);
        // And: its queues leave the gauges with it
        assertThat(gauge(ShaperMetrics.QUEUE_RECORDS)).isZero();
        assertThat(gauge(ShaperMetrics.QUEUE_BYTES)).isZero();
        // And: closing twice counts nothing twice
        a.close();
        assertThat(count(ShaperMetrics.QUEUED)).isEqualTo(2);
        // And: the queue delay is timed per released record
        assertThat(registry.get(ShaperMetrics.QUEUE_DELAY).timer().count()).isEqualTo(1);
    }

    @Test
    void aTaskStartsWithTheQueuesItRestored() {
        TaskCounts task = metrics.registerTaskCounts(3, 300);
        task.released(10_000, 5, 100);
        assertThat(gauge(ShaperMetrics.QUEUE_RECORDS)).isEqualTo(2);
        assertThat(gauge(ShaperMetrics.QUEUE_BYTES)).isEqualTo(200);
    }

    @Test
    void aSecondsOutputReachesTheReleaseRateWhenTheSecondIsOverEvenWithoutAnotherRecord() {
        TaskCounts task = metrics.registerTaskCounts(0, 0);
        for (int i = 0; i < 30; i++) {
            task.passed(10_100);
        }
        task.released(10_900, 5, 100);
        // While the second runs, the gauge leaves it out anyway
        wallMs.set(10_950);
        assertThat(releaseRate()).isZero();

        // When: the wall clock moves into the next second and a release tick runs, no record arriving
        wallMs.set(11_050);
        task.tick(11_050);

        // Then: the 31 records of second 10 count over the 10-second window
        assertThat(releaseRate()).isEqualTo(3.1);
    }

    @Test
    void aTickHandsOverTheOutputSoFarSoThatAQuietTasksSecondCountsWhenItIsOver() {
        TaskCounts task = metrics.registerTaskCounts(0, 0);
        task.passed(10_100);
        task.passed(10_150);
        task.passed(10_190);
        task.tick(10_200);
        // When: the second is over, with neither another record nor another tick
        wallMs.set(11_000);
        // Then: its 3 records count
        assertThat(releaseRate()).isEqualTo(0.3);
    }

    @Test
    void aClosingTaskHandsOverTheOutputOfItsLastSecond() {
        TaskCounts task = metrics.registerTaskCounts(0, 0);
        task.passed(10_100);
        task.passed(10_200);
        task.close();
        wallMs.set(11_000);
        assertThat(releaseRate()).isEqualTo(0.2);
    }
}
