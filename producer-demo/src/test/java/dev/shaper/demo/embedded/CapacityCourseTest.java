package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CapacityCourseTest {

    /** One sample a second, from second 1, with the given capacities. */
    private static List<Sample> capacities(double... capacity) {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < capacity.length; i++) {
            samples.add(new Sample((i + 1) * 1000L, 0, 0, new TreeMap<>(), 0, capacity[i]));
        }
        return samples;
    }

    @Test
    void shouldFindTheLowestAndTheFallAndTimeTheRecoveryFromTheSlowdownsEnd() {
        // Given: a maximum of 60/s, cut from second 3, lowest at second 5, back within 5 % (57/s) at second 9;
        // the slowdown ended at 6.5 s
        List<Sample> samples = capacities(60, 60, 42, 29.4, 20.6, 23.6, 26.6, 50, 57.5, 60);

        // When
        CapacityCourse course = CapacityCourse.of(samples, 60, 6.5);

        // Then
        assertThat(course.lowest()).isEqualTo(20.6);
        assertThat(course.lowestAtSeconds()).isEqualTo(5);
        assertThat(course.firstFellAtSeconds()).isEqualTo(3);
        assertThat(course.recoveredAtSeconds()).isEqualTo(9);
        assertThat(course.recoverySeconds()).isEqualTo(2.5);
        assertThat(course.lowestRow()).isEqualTo("20.6/s (34 % of the maximum 60/s) at 5 s");
        assertThat(course.firstFellRow()).isEqualTo("at 3 s (first more than 5 % below the maximum)");
        assertThat(course.recoveryRow(true)).isEqualTo("2.5 s after the slowdown ended (at 6.5 s), back within 5 %"
                + " of the maximum at 9 s");
    }

    @Test
    void shouldNotCountACapacityAtTheMaximumBeforeTheSlowdownEndedAsRecovered() {
        // Given: at the maximum until second 2, then low until the end; the slowdown ended at 4 s
        CapacityCourse course = CapacityCourse.of(capacities(60, 60, 30, 25, 40, 56), 60, 4);

        assertThat(course.recovered()).isFalse();
        assertThat(course.recoveryRow(true)).isEqualTo("not recovered by the end (after the slowdown ended (at 4 s))");
    }

    @Test
    void shouldSayThereWasNothingToRecoverFromWhenTheCapacityStayedWithinFivePercent() {
        CapacityCourse course = CapacityCourse.of(capacities(60, 58, 57.5, 60), 60, Double.NaN);

        assertThat(course.fell()).isFalse();
        assertThat(course.lowest()).isEqualTo(57.5);
        assertThat(course.firstFellRow()).isEqualTo("never (always within 5 % of the maximum)");
        assertThat(course.recoveryRow(false)).isEqualTo("nothing to recover from");
    }

    @Test
    void shouldTimeTheRecoveryFromTheLowestWithoutASlowdown() {
        CapacityCourse course = CapacityCourse.of(capacities(60, 30, 45, 60), 60, Double.NaN);

        assertThat(course.fromSeconds()).isEqualTo(2);
        assertThat(course.recoverySeconds()).isEqualTo(2);
        assertThat(course.recoveryRow(false)).startsWith("2 s after its lowest (at 2 s)");
    }

    @Test
    void shouldHaveNoCourseWhenNoSampleHoldsACapacity() {
        List<Sample> fixed = List.of(new Sample(1000, 0, 0, new TreeMap<>(), 0));

        assertThat(CapacityCourse.of(fixed, 60, 5)).isNull();
    }
}
