package dev.shaper.demo.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ZipfKeysTest {

    @Test
    void shouldGiveEveryKeyTheSameChanceWithExponentZero() {
        ZipfKeys keys = new ZipfKeys(4, 0, new Random(1));

        for (int i = 0; i < 4; i++) {
            assertThat(keys.probability(i)).isCloseTo(0.25, within(1e-12));
        }
    }

    @Test
    void shouldMakeTheFirstKeyTwiceAsLikelyAsTheSecondWithExponentOne() {
        ZipfKeys keys = new ZipfKeys(10, 1, new Random(1));

        assertThat(keys.probability(0) / keys.probability(1)).isCloseTo(2, within(1e-9));
        assertThat(keys.probability(0) / keys.probability(9)).isCloseTo(10, within(1e-9));
    }

    @Test
    void shouldDrawKeysWithTheirProbabilities() {
        // Given: exponent 1.5 over 5 keys, a fixed seed
        ZipfKeys keys = new ZipfKeys(5, 1.5, new Random(42));
        Map<String, Integer> counts = new HashMap<>();

        // When
        int draws = 200_000;
        for (int i = 0; i < draws; i++) {
            counts.merge(keys.next(), 1, Integer::sum);
        }

        // Then: each key's share within half a percentage point of its probability
        for (int i = 0; i < 5; i++) {
            assertThat(counts.getOrDefault("k" + i, 0) / (double) draws).as("k%d", i)
                    .isCloseTo(keys.probability(i), within(0.005));
        }
    }

    @Test
    void shouldMapTheEdgesOfTheUnitIntervalToTheFirstAndLastKey() {
        ZipfKeys keys = new ZipfKeys(3, 1, new Random(1));

        assertThat(keys.indexOf(0.0)).isZero();
        assertThat(keys.indexOf(Math.nextDown(1.0))).isEqualTo(2);
    }

    @Test
    void shouldRefuseNoKeysOrANegativeExponent() {
        assertThatThrownBy(() -> new ZipfKeys(0, 1, new Random())).hasMessageContaining("keys must be >= 1");
        assertThatThrownBy(() -> new ZipfKeys(3, -1, new Random())).hasMessageContaining("exponent must be >= 0");
    }
}
