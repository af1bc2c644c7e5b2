package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.ShaperDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The total rate under late ticks: however the release ticks are spread (a busy stream thread, a slow commit), no
 * second holds more than the total rate plus one, and within that the total rate releases its rate over time.
 */
class TotalRateSteadinessTopologyTest {

    private static final long TICK_MS = 20;
    private static final double TOTAL = 200;

    @Test
    void shouldReleaseTheTotalRateExactlyAndSmoothlyWhenTicksComeLateAndStall() {
        // Given: a total of 200/s, a 20 ms tick, and far more queued than 20 s can release
        Map<String, String> settings = new HashMap<>();
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, "1000");
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, Double.toString(TOTAL));
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(TICK_MS));
        settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "100000");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            for (int seq = 0; seq < 2_500; seq++) {
                for (int key = 0; key < 4; key++) {
                    shaper.send("key-" + key, "v" + seq);
                }
            }
            shaper.advance(Duration.ofSeconds(1));
            shaper.readShaped();

            // When: 20 s pass in steps of 15 to 35 ms, with a 150 ms stall at 5 s and at 13 s
            Random random = new Random(7);
            long elapsedMs = 0;
            long nextStallMs = 5_000;
            List<Long> releasedAtMs = new ArrayList<>();
            while (elapsedMs < 20_000) {
                long stepMs = elapsedMs >= nextStallMs ? 150 : 15 + random.nextInt(21);
                if (elapsedMs >= nextStallMs) {
                    nextStallMs += 8_000;
                }
                shaper.stall(Duration.ofMillis(stepMs)); // one late tick per step
                elapsedMs += stepMs;
                int released = shaper.readShaped().size();
                for (int i = 0; i < released; i++) {
                    releasedAtMs.add(elapsedMs);
                }
            }

            // Then: 20 s at 200/s within 1 % (the stalls made up within the ceiling); no second above the rate
            // plus one
            assertThat(releasedAtMs.size()).isBetween(3_960, 4_040);
            int densest = 0;
            for (int i = 0, j = 0; i < releasedAtMs.size(); i++) {
                while (releasedAtMs.get(i) - releasedAtMs.get(j) >= 1_000) {
                    j++;
                }
                densest = Math.max(densest, i - j + 1);
            }
            assertThat(densest).isLessThanOrEqualTo((int) TOTAL + 1);
        }
    }
}
