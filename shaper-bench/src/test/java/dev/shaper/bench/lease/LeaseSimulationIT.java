package dev.shaper.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Three simulated instances through every pattern, against a redis-server the simulation starts. */
class LeaseSimulationIT {

    private static final double CAPACITY = 300;

    @Test
    void shouldNeverLetThreeInstancesReleaseMoreThanTheCapacityInAnyPattern() throws Exception {
        // Given: short phases, and a timeout a loaded machine keeps to
        LeaseBenchOptions options = new LeaseBenchOptions(List.of(3), CAPACITY, 1_000, 500, 200, 1_000, 500,
                Path.of("target", "lease-bench-results.md"));

        // When
        List<PhaseFigures> phases = LeaseBenchmark.simulate(options, 3);

        // Then: every pattern ran, renewals were answered, and the rates never summed to more than C
        assertThat(phases).extracting(PhaseFigures::pattern)
                .containsExactly("even (all join)", "churn", "skewed", "hot spot moving", "Redis pause");
        for (PhaseFigures phase : phases) {
            assertThat(phase.renewals().answered()).as(phase.pattern()).isPositive();
            assertThat(phase.redis().evalshaCalls()).as(phase.pattern()).isPositive();
            assertThat(phase.highestSum()).as(phase.pattern()).isPositive().isLessThanOrEqualTo(CAPACITY * 1.000001);
        }
        // And: even demand, met by the static shares from the start, stays fair
        assertThat(phases.get(0).fairness().jainAtEnd()).isGreaterThan(0.99);
    }
}
