package dev.shaper.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MaxMinFairSharesTest {

    @Test
    void shouldMeetSmallDemandsAndSplitTheRestEvenlyAmongTheLargeOnes() {
        double[] shares = MaxMinFairShares.of(new double[] {300, 50, 200}, 400);

        assertThat(shares).containsExactly(new double[] {175, 50, 175}, within(1e-9));
    }

    @Test
    void shouldSplitWhatIsLeftEvenlyWhenEveryDemandIsMet() {
        double[] shares = MaxMinFairShares.of(new double[] {10, 30, 0}, 100);

        // 60 left over, 20 each on top of the demands
        assertThat(shares).containsExactly(new double[] {30, 50, 20}, within(1e-9));
    }

    @Test
    void shouldSplitEvenlyWhenEveryoneAsksForMoreThanAnEqualPart() {
        assertThat(MaxMinFairShares.of(new double[] {500, 900, 1000, 700}, 400))
                .containsExactly(new double[] {100, 100, 100, 100}, within(1e-9));
    }

    @Test
    void shouldShareAFewHeavyDemandsLikeTheSkewedPattern() {
        // Given: 2 heavy instances of 10 asking 8 C/N, 8 light ones asking C/(2N), C = 1000, N = 10
        double[] demands = {800, 800, 50, 50, 50, 50, 50, 50, 50, 50};

        double[] shares = MaxMinFairShares.of(demands, 1000);

        // Then: the light ones get their demand, the heavy ones split the 600 left
        assertThat(shares[0]).isCloseTo(300, within(1e-9));
        assertThat(shares[1]).isCloseTo(300, within(1e-9));
        assertThat(shares[9]).isCloseTo(50, within(1e-9));
    }

    @Test
    void shouldGiveNothingToNoOne() {
        assertThat(MaxMinFairShares.of(new double[0], 100)).isEmpty();
    }
}
