package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VirtualClockTest {

    private static final long MS = 1_000_000L;

    @Test
    void shouldFollowTheWallClockWhileTicksAreOnTime() {
        VirtualClock clock = new VirtualClock(200, null, 10_000);
        assertThat(clock.current()).isEqualTo(10_000 * MS);
        assertThat(clock.advance(10_100)).isEqualTo(10_100 * MS);
        assertThat(clock.advance(10_250)).isEqualTo(10_250 * MS);
    }

    @Test
    void shouldMoveAtMostOneStepWhenTheWallClockJumps() {
        VirtualClock clock = new VirtualClock(200, null, 10_000);
        assertThat(clock.peek(15_000)).isEqualTo(10_200 * MS);
        assertThat(clock.advance(15_000)).isEqualTo(10_200 * MS);
        assertThat(clock.advance(15_100)).isEqualTo(10_300 * MS);
    }

    @Test
    void shouldResumeFromThePersistedTimeAfterARestart() {
        VirtualClock clock = new VirtualClock(200, 5_000 * MS, 99_000);
        assertThat(clock.current()).isEqualTo(5_000 * MS);
        assertThat(clock.advance(99_100)).isEqualTo(5_100 * MS);
    }

    @Test
    void shouldNotGoBackWhenTheWallClockDoes() {
        VirtualClock clock = new VirtualClock(200, null, 10_000);
        clock.advance(10_100);
        assertThat(clock.advance(10_050)).isEqualTo(10_100 * MS);
        assertThat(clock.advance(10_150)).isEqualTo(10_150 * MS);
    }

    @Test
    void shouldNeverShowAnArrivalATimeTheNextTickOfTheSameStepWillNotReach() {
        // A task's first second: ticks move the clock by one 10-ms tick each, however late they come
        VirtualClock clock = new VirtualClock(200, null, 10_000);
        long step = 10 * MS;

        // An arrival 150 ms after the last tick, before the late tick
        long arrival = clock.peek(10_150, step);
        long tick = clock.advance(10_150, step);

        assertThat(arrival).isEqualTo(10_010 * MS).isLessThanOrEqualTo(tick);
        assertThat(clock.peek(10_151, step)).isGreaterThanOrEqualTo(arrival);
        // The unbounded peek would have shown 10,150 ms, 140 ms beyond the tick after it
        assertThat(new VirtualClock(200, null, 10_000).peek(10_150)).isEqualTo(10_150 * MS);
    }

    @Test
    void shouldNeverAdvanceToATimeBeforeOneAnArrivalSawWhenTheStepShrinks() {
        // An arrival 60 ms after the last tick saw 60 ms with a 100-ms tick; then the tick became 1 ms
        VirtualClock clock = new VirtualClock(200, null, 10_000);
        long seen = clock.peek(10_060, 100 * MS);

        assertThat(clock.advance(10_061, MS)).isEqualTo(seen).isEqualTo(10_060 * MS);
        assertThat(clock.advance(10_062, MS)).isEqualTo(10_061 * MS);
    }
}
