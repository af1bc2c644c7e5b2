package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.rules.KeyMatcher;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.testsupport.ShaperDriver;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Priorities and weights of the rules when the total rate binds: a higher priority gets its whole demand before a
 * lower one gets any; within a priority, waiting keys share by weight x rate.
 */
class PriorityTopologyTest {

    private static final Duration TICK = Duration.ofMillis(100);
    private static final double TOTAL = 100;

    @Test
    void shouldGiveTheTotalToPriorityZeroBeforePriorityOneGetsAnyWhenItsDemandExceedsTheTotal() {
        // Given: interactive keys (priority 0) asking 120/s together, backfill keys (priority 1) asking 200/s, and
        // a total of 100/s; the backfill is sent first
        RuleBook rules = rules(new ShapingRule(60, 100_000, 600_000, 0, 1),
                new ShapingRule(50, 100_000, 600_000, 1, 1));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, 1)) {
            send(shaper, "backfill-", 4, 1_000);
            send(shaper, "interactive-", 2, 1_000);

            // When: 10 s pass
            Map<String, Integer> released = releasedByPrefix(shaper, 100);

            // Then: the interactive keys take the whole total; the backfill gets only what passed before any queue
            assertThat(released.getOrDefault("interactive-", 0)).isBetween(990, 1_012);
            assertThat(released.getOrDefault("backfill-", 0)).isLessThanOrEqualTo(4);
        }
    }

    @Test
    void shouldGiveALowerPriorityWhatAHigherOneLeaves() {
        // Given: interactive keys asking 60/s together, backfill keys 200/s, a total of 100/s
        RuleBook rules = rules(new ShapingRule(30, 100_000, 600_000, 0, 1),
                new ShapingRule(50, 100_000, 600_000, 1, 1));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, 1)) {
            send(shaper, "backfill-", 4, 1_000);
            send(shaper, "interactive-", 2, 1_000);

            Map<String, Integer> released = releasedByPrefix(shaper, 100);

            // Then: interactive gets its whole demand (600 in 10 s), backfill the other 40/s
            assertThat(released.getOrDefault("interactive-", 0)).isBetween(598, 604);
            assertThat(released.getOrDefault("backfill-", 0)).isBetween(395, 412);
        }
    }

    @Test
    void shouldShareATotalByWeightTimesRateWithinAPriority() {
        // Given: two heavy keys (weight 3) and two light keys (weight 1), all at 50/s, against a total of 100/s
        RuleBook rules = heavyAndLight();
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, 1)) {
            send(shaper, "light-", 2, 1_000);
            send(shaper, "heavy-", 2, 1_000);

            // When: 1 s to settle, then 10 s counted
            releasedByPrefix(shaper, 10);
            Map<String, Integer> released = releasedByPrefix(shaper, 100);

            // Then: shares 3:1 within 5 %, the whole total used
            int heavy = released.getOrDefault("heavy-", 0);
            int light = released.getOrDefault("light-", 0);
            assertThat(heavy + light).isBetween(990, 1_010);
            assertThat((double) heavy / light).isCloseTo(3.0, within(0.15));
        }
    }

    @Test
    void shouldShareByWeightWithShortTicksWhoseBudgetIsAUnitOrTwo() {
        // Given: the same keys, ticks of 20 ms: about 2 units of the total per tick for two bands
        RuleBook rules = heavyAndLight();
        Duration tick = Duration.ofMillis(20);
        try (ShaperDriver shaper = ShaperDriver.start(settings(tick), rules, 1)) {
            send(shaper, "light-", 2, 1_000);
            send(shaper, "heavy-", 2, 1_000);

            releasedByPrefix(shaper, tick, 50);
            Map<String, Integer> released = releasedByPrefix(shaper, tick, 500);

            int heavy = released.getOrDefault("heavy-", 0);
            int light = released.getOrDefault("light-", 0);
            assertThat(heavy + light).isBetween(990, 1_010);
            assertThat((double) heavy / light).isCloseTo(3.0, within(0.15));
        }
    }

    @Test
    void shouldKeepTheWeightsWhenTheTicksComeLate() {
        // Given: the same keys, ticks of 20 ms of which every fifth comes 150 ms late, as on a busy stream thread
        RuleBook rules = heavyAndLight();
        Duration tick = Duration.ofMillis(20);
        try (ShaperDriver shaper = ShaperDriver.start(settings(tick), rules, 1)) {
            send(shaper, "light-", 2, 1_000);
            send(shaper, "heavy-", 2, 1_000);

            // When: 1 s to settle, then 10 s, every fifth tick 170 ms after the one before
            releasedByPrefix(shaper, tick, 50);
            Map<String, Integer> released = new HashMap<>();
            for (int i = 0; i < 40; i++) {
                for (Map.Entry<String, Integer> e : releasedByPrefix(shaper, tick, 4).entrySet()) {
                    released.merge(e.getKey(), e.getValue(), Integer::sum);
                }
                for (Map.Entry<String, Integer> e : releasedByPrefix(shaper, Duration.ofMillis(170), 1).entrySet()) {
                    released.merge(e.getKey(), e.getValue(), Integer::sum);
                }
            }

            // Then: still 3:1 within 5 %
            int heavy = released.getOrDefault("heavy-", 0);
            int light = released.getOrDefault("light-", 0);
            assertThat((double) heavy / light).as("heavy %d, light %d", heavy, light).isCloseTo(3.0, within(0.15));
        }
    }

    /** Keys "heavy-*" of weight 3 and "light-*" of weight 1, all at 50/s. */
    private static RuleBook heavyAndLight() {
        return new RuleBook(new ShapingRule(50, 100_000, 600_000), List.of(
                new KeyRule(new KeyMatcher.Prefix("heavy-"), new ShapingRule(50, 100_000, 600_000, 0, 3)),
                new KeyRule(new KeyMatcher.Prefix("light-"), new ShapingRule(50, 100_000, 600_000, 0, 1))));
    }

    private static Map<String, String> settings() {
        return settings(TICK);
    }

    private static Map<String, String> settings(Duration tick) {
        Map<String, String> settings = new HashMap<>();
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, Double.toString(TOTAL));
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(tick.toMillis()));
        return settings;
    }

    /** Keys "interactive-*" with {@code interactive}, "backfill-*" with {@code backfill}. */
    private static RuleBook rules(ShapingRule interactive, ShapingRule backfill) {
        return new RuleBook(interactive, List.of(
                new KeyRule(new KeyMatcher.Prefix("interactive-"), interactive),
                new KeyRule(new KeyMatcher.Prefix("backfill-"), backfill)));
    }

    private static void send(ShaperDriver shaper, String prefix, int keys, int perKey) {
        for (int seq = 0; seq < perKey; seq++) {
            for (int key = 0; key < keys; key++) {
                shaper.send(prefix + key, "v" + seq);
            }
        }
    }

    /** Advances {@code ticks} ticks and counts the shaped records by key prefix (the text up to its last dash). */
    private static Map<String, Integer> releasedByPrefix(ShaperDriver shaper, int ticks) {
        return releasedByPrefix(shaper, TICK, ticks);
    }

    private static Map<String, Integer> releasedByPrefix(ShaperDriver shaper, Duration tickLength, int ticks) {
        Map<String, Integer> released = new HashMap<>();
        for (int tick = 0; tick < ticks; tick++) {
            shaper.advance(tickLength);
            for (TestRecord<byte[], byte[]> record : shaper.readShaped()) {
                String key = text(record.key());
                released.merge(key.substring(0, key.lastIndexOf('-') + 1), 1, Integer::sum);
            }
        }
        return released;
    }
}
