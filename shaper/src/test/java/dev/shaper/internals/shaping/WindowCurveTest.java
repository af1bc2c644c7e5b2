package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * When the units to come may leave under a one-second ceiling, from a snapshot of its window: at once while it has
 * room; after a fall of the limit, as the releases made at the larger one leave; a second after the unit one limit
 * before.
 */
class WindowCurveTest {

    @Test
    void shouldLetUnitsGoAtOnceWhileTheWindowHasRoom() {
        ReleaseWindow window = new ReleaseWindow();
        window.record(0, 3);

        WindowCurve curve = window.curve(500, 10);

        // 3 held of 10: seven more may go now; the eighth once the three leave at 1,000 ms
        assertThat(curve.msUntil(1)).isZero();
        assertThat(curve.msUntil(7)).isZero();
        assertThat(curve.msUntil(8)).isEqualTo(500);
        assertThat(window.msUntilBelow(500, 10)).isZero();
    }

    @Test
    void shouldHoldTheNextUnitsBackUntilTheReleasesAtTheLargerLimitLeave() {
        // Given: 40 units released at 40/s over the last second (one every 25 ms), and the limit fallen to 20
        ReleaseWindow window = new ReleaseWindow();
        for (int i = 0; i < 40; i++) {
            window.record(i * 25L, 1);
        }
        long now = 990;

        WindowCurve curve = window.curve(now, 20);

        // Then: the first waits for 21 of the 40 to leave (the 21st was stamped 500 ms: it leaves at 1,500 ms)
        assertThat(curve.msUntil(1)).isEqualTo(510);
        assertThat(window.msUntilBelow(now, 20)).isEqualTo(510);
        // And: the next ones as the others leave, 25 ms apart, the 20th when the last of them leaves
        assertThat(curve.msUntil(2)).isEqualTo(535);
        assertThat(curve.msUntil(20)).isEqualTo(975 + 1_000 - now);
        // And: the 21st a second after the first
        assertThat(curve.msUntil(21)).isEqualTo(510 + 1_000);
    }

    @Test
    void shouldHoldNothingBackWithoutALimitAndEverythingAtALimitOfNothing() {
        assertThat(WindowCurve.OPEN.msUntil(1_000_000)).isZero();
        ReleaseWindow window = new ReleaseWindow();
        assertThat(window.curve(0, 0).msUntil(1)).isGreaterThan(1_000_000_000L);
    }
}
