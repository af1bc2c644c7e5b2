package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.demo.db.ReleaseWindows;
import dev.shaper.demo.db.WriterStats;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class DemoSummaryTest {

    private static String summary(DemoSummary.AllKeysSecond allKeys) {
        RateTimeline timeline = new RateTimeline();
        Sample last = new Sample(10_000, 500, 400, new TreeMap<>(), 400);
        timeline.add(last);
        return new DemoSummary("bursts", last, timeline, new WriterStats(), new ReleaseWindows.Densest("k0", 21), 21,
                allKeys, false).format();
    }

    @Test
    void shouldPrintTheCapacityAndTheDensestSecondWithinItWhenATotalRateIsSet() {
        // Given / When: a capacity of 40/s (43 in one second with a tick's worth and two tasks), at most 43 rows in
        // a second
        String table = summary(new DemoSummary.AllKeysSecond(40, 43, 43));

        // Then
        assertThat(table).containsPattern("db capacity +40/s, the shaper's total rate over all keys")
                .containsPattern("densest second +43 rows of all keys released within one second \\(limit 43:"
                        + " capacity \\+5 %, one late release, one per task\\)\\n")
                .doesNotContain("EXCEEDED");
    }

    @Test
    void shouldFlagTheDensestSecondWhenItHoldsMoreThanTheCapacityAllows() {
        String table = summary(new DemoSummary.AllKeysSecond(40, 43, 44));

        assertThat(table).containsPattern("densest second +44 rows .*\\(limit 43: .*\\)  EXCEEDED");
    }

    @Test
    void shouldSayThereIsNoCapWhenNoTotalRateIsSet() {
        String table = summary(new DemoSummary.AllKeysSecond(0, 1, 75));

        assertThat(table).containsPattern("db capacity +no cap \\(--total-rate 0\\)")
                .containsPattern("densest second +75 rows of all keys released within one second\\n")
                .doesNotContain("EXCEEDED", "limit 1");
    }
}
