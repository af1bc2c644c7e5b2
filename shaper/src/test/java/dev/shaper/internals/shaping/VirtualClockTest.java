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
}
