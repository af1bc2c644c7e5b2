package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StallMeterTest {

    private static final long MS = 1_000_000L;

    @Test
    void shouldMakeUpWhatCommitsRoutinelyCostButNotOneLongStall() {
        StallMeter meter = new StallMeter(200 * MS, -StallMeter.START_UP_MS);
        long wall = 0;
        // Given: 2 s of 1-ms ticks, each 100 ms one of them 12 ms late (a commit)
        for (int i = 0; i < 2_000; i++) {
            wall++;
            meter.tick(i % 100 == 50 ? 12 * MS : 0, wall);
        }
        assertThat(meter.routineLateNanos()).isEqualTo(12 * MS);

        // When: one stall of 150 ms
        wall += 150;
        meter.tick(150 * MS, wall);
        for (int i = 0; i < 300; i++) {
            wall++;
            meter.tick(i % 100 == 50 ? 12 * MS : 0, wall);
        }

        // Then: what is routine stays what it was
        assertThat(meter.routineLateNanos()).isEqualTo(12 * MS);
    }

    @Test
    void shouldFollowAThreadThatIsRoutinelyLateAndForgetItTwoSecondsAfter() {
        StallMeter meter = new StallMeter(200 * MS, -StallMeter.START_UP_MS);
        long wall = 0;
        for (int i = 0; i < 300; i++) { // a busy thread: every tick 30 ms late, for 9 s
            wall += 30;
            meter.tick(30 * MS, wall);
        }
        assertThat(meter.routineLateNanos()).isEqualTo(30 * MS);
        for (int i = 0; i < 2_100; i++) { // then on time
            wall++;
            meter.tick(0, wall);
        }
        assertThat(meter.routineLateNanos()).isZero();
    }

    @Test
    void shouldNeverMakeUpMoreThanTheCatchUpBound() {
        StallMeter meter = new StallMeter(200 * MS, -StallMeter.START_UP_MS);
        long wall = 0;
        for (int i = 0; i < 100; i++) {
            wall += 500;
            meter.tick(499 * MS, wall);
        }
        assertThat(meter.routineLateNanos()).isEqualTo(200 * MS);
    }

    @Test
    void shouldNotTakeTheLatenessOfATasksFirstSecondForRoutine() {
        // Given: a task that started at 0 and whose ticks in its first second are 80 ms late (a restore, a burst)
        StallMeter meter = new StallMeter(200 * MS, 0);
        long wall = 0;
        for (int i = 0; i < 12; i++) {
            wall += 80;
            meter.tick(80 * MS, wall);
        }
        // Then: nothing of it is routine; once past the start, on-time ticks say so
        assertThat(meter.routineLateNanos()).isZero();
        for (int i = 0; i < 500; i++) {
            wall++;
            meter.tick(0, wall);
        }
        assertThat(meter.routineLateNanos()).isZero();
    }

    @Test
    void shouldTickAtHalfTheFastestIntervalWithinOneMillisecondAndTheSetting() {
        assertThat(ReleasePace.tickMs(0, 100)).isEqualTo(100); // nothing waits
        assertThat(ReleasePace.tickMs(7, 100)).isEqualTo(71);
        assertThat(ReleasePace.tickMs(50, 100)).isEqualTo(10);
        assertThat(ReleasePace.tickMs(1_000, 100)).isEqualTo(1);
        assertThat(ReleasePace.tickMs(0.5, 100)).isEqualTo(100);
        assertThat(ReleasePace.tickMs(50, 5)).isEqualTo(5); // the setting bounds it
    }

    @Test
    void shouldStateRatePlusOneAtEveryRate() {
        assertThat(ReleasePace.maxInOneSecond(0.5)).isEqualTo(1);
        assertThat(ReleasePace.maxInOneSecond(7)).isEqualTo(8);
        assertThat(ReleasePace.maxInOneSecond(7.5)).isEqualTo(8);
        assertThat(ReleasePace.maxInOneSecond(50)).isEqualTo(51);
        assertThat(ReleasePace.maxInOneSecond(1_000)).isEqualTo(1_001);
        assertThat(ReleasePace.maxInOneSecond(1e12)).isEqualTo(Integer.MAX_VALUE);
    }
}
