package dev.shaper.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class JainIndexTest {

    @Test
    void shouldBeOneWhenEveryoneGetsItsShare() {
        assertThat(JainIndex.of(new double[] {175, 50, 175}, new double[] {175, 50, 175})).isCloseTo(1, within(1e-12));
    }

    @Test
    void shouldBeOneOverNWhenOneGetsEverything() {
        assertThat(JainIndex.of(new double[] {400, 0, 0, 0}, new double[] {100, 100, 100, 100}))
                .isCloseTo(0.25, within(1e-12));
    }

    @Test
    void shouldWeighEachAllocationByItsShare() {
        // x = 1 and 0.5: (1.5)^2 / (2 x 1.25) = 0.9
        assertThat(JainIndex.of(new double[] {100, 100}, new double[] {100, 200})).isCloseTo(0.9, within(1e-12));
    }

    @Test
    void shouldLeaveOutThoseWithoutAShare() {
        assertThat(JainIndex.of(new double[] {5, 100}, new double[] {0, 100})).isCloseTo(1, within(1e-12));
        assertThat(JainIndex.of(new double[] {5}, new double[] {0})).isEqualTo(1);
        assertThat(JainIndex.of(new double[] {0, 0}, new double[] {10, 10})).isZero();
    }

    @Test
    void shouldRefuseAllocationsThatDoNotMatchTheShares() {
        assertThatThrownBy(() -> JainIndex.of(new double[] {1}, new double[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
