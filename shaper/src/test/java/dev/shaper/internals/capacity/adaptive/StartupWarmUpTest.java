package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.testsupport.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which restores warm the capacity up: those with queued records, during the instance's start only. */
class StartupWarmUpTest {

    private static final double MAX = 400;
    private static final double MIN = 80;
    /** A pinned start: 2025-11-24T16:00:00Z. */
    private static final long START_MS = 1_764_000_000_000L;

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final AdaptiveCapacity adaptive = AdaptiveCapacity.start(new AdaptiveSettings(new CapacityBounds(MIN, MAX),
            50, 0.01, 500, 2_000, 10_000, ControllerKind.AIMD), START_MS, false);
    private final ClosedLoop loop = new ClosedLoop(adaptive, null, capacity -> { }, scheduler,
            () -> START_MS + scheduler.nanoTime() / 1_000_000, "me");
    private final StartupWarmUp warmUp = new StartupWarmUp(loop);

    @Test
    void shouldWarmUpWhenATaskOpensWithQueuedRecordsDuringTheStart() {
        // Given: an instance starting, its loop at the maximum
        loop.start();

        // When: partition 0 opens empty, then partition 1 with 1,200 queued records, 100 ms in
        warmUp.restored(0, 0);
        assertThat(adaptive.capacity()).isEqualTo(MAX);
        scheduler.advance(Duration.ofMillis(100));
        warmUp.restored(1, 1_200);

        // Then: the capacity is at the minimum, warming up from then
        assertThat(adaptive.capacity()).isEqualTo(MIN);
        assertThat(adaptive.lastDecision().reason()).isEqualTo(Reason.WARMING_UP);
        assertThat(adaptive.warmUpStartMs()).isEqualTo(START_MS + 100);
    }

    @Test
    void shouldNotWarmUpWhenATaskMovesHereWithQueuedRecordsAfterTheStart() {
        // Given: an instance that has run
        loop.start();
        warmUp.instanceRunning();

        // When: a rebalance brings it a partition with queued records
        warmUp.restored(3, 5_000);

        // Then: the capacity stays where it was
        assertThat(adaptive.capacity()).isEqualTo(MAX);
        assertThat(adaptive.warmUpStartMs()).isZero();
    }
}
