package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.ShaperDriver;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * How the total rate is shared among the keys waiting for it: with equal rules and more demand than capacity, each
 * key gets an equal share (Jain's fairness index of the keys' shares, 1 for perfectly equal shares, 1/n when one key
 * takes everything).
 */
class CapacityFairnessTopologyTest {

    private static final Duration TICK = Duration.ofMillis(100);

    @Test
    void shouldShareTheTotalRateEquallyAmongAHundredKeysWithEqualRules() {
        // Given: 100 keys allowed 50/s each, 5,000/s together, against a total of 200/s
        Map<String, String> settings = new HashMap<>();
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, "50");
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "200");
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(TICK.toMillis()));
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            // When: each key has 100 records waiting, sent key after key (so a queue in arrival order would serve the
            // first keys only), and 10 s pass
            for (int key = 0; key < 100; key++) {
                for (int seq = 0; seq < 100; seq++) {
                    shaper.send("key-" + key, "v" + seq);
                }
            }
            Map<String, Integer> released = new HashMap<>();
            for (int tick = 0; tick < 100; tick++) {
                shaper.advance(TICK);
                for (TestRecord<byte[], byte[]> record : shaper.readShaped()) {
                    released.merge(text(record.key()), 1, Integer::sum);
                }
            }

            // Then: about 2,000 released (10 s at 200/s), shared by all 100 keys with a Jain index of at least 0.99
            int total = released.values().stream().mapToInt(Integer::intValue).sum();
            assertThat(total).isBetween(1_990, 2_030);
            assertThat(released).hasSize(100);
            assertThat(jainIndex(released)).isGreaterThanOrEqualTo(0.99);
        }
    }

    /** (sum x)^2 / (n * sum x^2). */
    private static double jainIndex(Map<String, Integer> shares) {
        double sum = 0;
        double squares = 0;
        for (int share : shares.values()) {
            sum += share;
            squares += (double) share * share;
        }
        return sum * sum / (shares.size() * squares);
    }
}
