package dev.shaper.internals.shaping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReleaseWindowTest {

    private static final long T0 = 1_000_000L;

    @Test
    void shouldAllowUpToTheLimitInOneSecondThenWaitForTheOldestToLeave() {
        // Given: a limit of 3 a second, three releases at T0, T0 + 100, T0 + 200
        ReleaseWindow window = new ReleaseWindow();
        for (long t : new long[] {T0, T0 + 100, T0 + 200}) {
            assertThat(window.allows(t, 3)).isTrue();
            window.record(t, 1);
        }

        // Then: a fourth waits until the first is a whole second old
        assertThat(window.allows(T0 + 999, 3)).isFalse();
        assertThat(window.allows(T0 + 1_000, 3)).isTrue();
        assertThat(window.heldAt(T0 + 1_000)).isEqualTo(2);
    }

    @Test
    void shouldStillCountReleasesForTheReleaserAfterAReaderAskedAtALaterTime() {
        // Given: releases at T0 + 0, 100, ..., 900, as a stream thread stamps them with its cached time
        ReleaseWindow window = new ReleaseWindow();
        for (long t = T0; t < T0 + 1_000; t += 100) {
            window.record(t, 1);
        }

        // When: a reader on the system clock, 500 ms ahead of the releaser's, asks what the last second held
        long readerSees = window.heldAt(T0 + 1_450);

        // Then: it sees its own second; the releaser, asking next at its earlier time, still sees all ten
        assertThat(readerSees).isEqualTo(5);
        assertThat(window.heldAt(T0 + 950)).isEqualTo(10);
        assertThat(window.holdsLessThan(T0 + 950, 10)).isFalse();
        assertThat(window.curve(T0 + 950, 10).msUntil(1)).isEqualTo(50);
    }

    @Test
    void shouldKeepEveryOneSecondWindowWithinTheLimitWhateverTheReleasesTry() {
        // Given: a key at 50/s whose release tries at random times, often in bursts (stalls made up)
        Random random = new Random(3);
        ReleaseWindow window = new ReleaseWindow();
        List<Long> released = new ArrayList<>();
        long t = T0;
        for (int i = 0; i < 20_000; i++) {
            t += random.nextInt(10) == 0 ? random.nextInt(200) : 0;
            if (window.allows(t, 51)) {
                window.record(t, 1);
                released.add(t);
            }
        }

        // Then: no window [s, s + 1000) of milliseconds holds more than 51
        int most = 0;
        for (int i = 0, j = 0; i < released.size(); i++) {
            while (released.get(i) - released.get(j) >= 1_000) {
                j++;
            }
            most = Math.max(most, i - j + 1);
        }
        assertThat(most).isEqualTo(51);
    }

    @Test
    void shouldLetARecordThatCostsMoreThanTheLimitLeaveAloneInItsSecond() {
        ReleaseWindow window = new ReleaseWindow();
        assertThat(window.allows(T0, 5)).isTrue();
        window.record(T0, 12);
        assertThat(window.allows(T0 + 999, 5)).isFalse();
        assertThat(window.allows(T0 + 1_000, 5)).isTrue();
    }

    @Test
    void shouldAssumeTheSecondBeforeItStartedWasFullButLetRecordsOnTheirScheduleLeave() {
        // Given: a key at 10/s that passed records at once until T0
        ReleaseWindow window = ReleaseWindow.assumingFullRate(10, T0);

        // Then: nothing extra at T0, but each record on its schedule (every 100 ms) leaves
        assertThat(window.allows(T0, 11)).isFalse();
        for (long t = T0 + 100; t < T0 + 3_000; t += 100) {
            assertThat(window.allows(t, 11)).as("at T0 + %d", t - T0).isTrue();
            window.record(t, 1);
        }
        // And: a second after the last assumed release, only what was released counts
        assertThat(window.heldAt(T0 + 2_950)).isEqualTo(10);
    }

    @Test
    void shouldHoldTheHigherLimitForASecondAfterItIsLowered() {
        // Given: 100 released in the last second at a limit of 101
        ReleaseWindow window = new ReleaseWindow();
        for (int i = 0; i < 100; i++) {
            assertThat(window.allows(T0 + i * 10L, 101)).isTrue();
            window.record(T0 + i * 10L, 1);
        }

        // When: the limit falls to 51 at T0 + 1,000: releases go on, every 10 ms for 600 ms, without a pause
        for (long t = T0 + 1_000; t < T0 + 1_600; t += 10) {
            assertThat(window.allows(t, 51)).as("at T0 + %d", t - T0).isTrue();
            window.record(t, 1);
        }

        // Then: a second after the change the new limit holds alone: 59 in (T0 + 1,001, T0 + 2,001]
        assertThat(window.allows(T0 + 2_001, 51)).isFalse();
        assertThat(window.allows(T0 + 2_091, 51)).isTrue(); // 50 left
    }

    @Test
    void shouldTreatAClockGoingBackAsStandingStill() {
        ReleaseWindow window = new ReleaseWindow();
        window.record(T0, 1);
        window.record(T0 - 500, 1); // the wall clock stepped back
        assertThat(window.heldAt(T0 + 999)).isEqualTo(2);
        assertThat(window.heldAt(T0 + 1_000)).isZero();
        assertThat(window.isEmptyAt(T0 + 1_000)).isTrue();
    }

    @Test
    void shouldGrowBeyondItsFirstEntriesAndForgetInOrder() {
        ReleaseWindow window = new ReleaseWindow();
        for (int i = 0; i < 1_000; i++) {
            window.record(T0 + i, 2);
        }
        assertThat(window.heldAt(T0 + 999)).isEqualTo(2_000);
        assertThat(window.heldAt(T0 + 1_499)).isEqualTo(1_000);
        assertThat(window.heldAt(T0 + 1_999)).isZero();
    }
}
