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
                allKeys, false, 98).format();
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
    void shouldGiveTheShapedPeakByReleaseTimeAsTheChartDraws() {
        String table = summary(new DemoSummary.AllKeysSecond(0, 1, 75));

        assertThat(table).containsPattern("shaped +400 \\(40.0/s on average, peak 98/s by release time\\)\n");
    }

    @Test
    void shouldFlagTheDensestSecondWhenItHoldsMoreThanTheCapacityAllows() {
        String table = summary(new DemoSummary.AllKeysSecond(40, 43, 44));

        assertThat(table).containsPattern("densest second +44 rows .*\\(limit 43: .*\\)  EXCEEDED");
    }

    @Test
    void shouldPrintTheLowestCapacityAndTheRecoveryWhenTheLoopIsClosed() {
        // Given: a capacity of at most 60/s that fell to 21/s at 14 s and was back at 27 s, 7 s after the slowdown
        RateTimeline timeline = new RateTimeline();
        Sample last = new Sample(30_000, 900, 600, new TreeMap<>(java.util.Map.of("DELAY_EXCEEDED", 300L)), 600, 60);
        timeline.add(last);
        CapacityCourse course = new CapacityCourse(60, 21, 14, 11, 20, 27);

        // When
        String table = new DemoSummary("bursts", last, timeline, new WriterStats(), new ReleaseWindows.Densest("k0",
                21), 21, new DemoSummary.AllKeysSecond(60, 63, 50), false, course, true, 61).format();

        // Then
        assertThat(table).containsPattern("lowest capacity +21/s \\(35 % of the maximum 60/s\\) at 14 s\n")
                .containsPattern("capacity fell +at 11 s")
                .containsPattern("capacity recovered +7 s after the slowdown ended \\(at 20 s\\)")
                .containsPattern("accounted for +every record: 900 produced = 600 shaped \\+ 300 rejected, all shaped"
                        + " ones in the database");
    }

    @Test
    void shouldSplitTheRejectionsOfAReasonGivenAtBothStagesIntoAtArrivalAndWhileQueued() {
        // Given: 300 records rejected DELAY_EXCEEDED, 40 of them taken out of their queue; 5 QUEUE_FULL
        RateTimeline timeline = new RateTimeline();
        Sample last = new Sample(30_000, 905, 600, new TreeMap<>(java.util.Map.of("DELAY_EXCEEDED", 300L,
                "QUEUE_FULL", 5L)), new TreeMap<>(java.util.Map.of("DELAY_EXCEEDED", 40L)), 600, Double.NaN);
        timeline.add(last);

        // When
        DemoSummary summary = new DemoSummary("bursts", last, timeline, new WriterStats(),
                new ReleaseWindows.Densest("k0", 21), 21, new DemoSummary.AllKeysSecond(0, 1, 50), false, 50);

        // Then: the same row in the table and in the rows the chart's page shows
        assertThat(summary.rows()).containsEntry("rejected", "305 (DELAY_EXCEEDED 300: 260 refused at arrival, 40"
                + " expired or cut while queued, QUEUE_FULL 5)");
        assertThat(summary.format()).containsPattern("rejected +305 \\(DELAY_EXCEEDED 300: 260 refused at arrival");
    }

    @Test
    void shouldSayWhatIsMissingWhenNotEveryRecordIsAccountedFor() {
        RateTimeline timeline = new RateTimeline();
        Sample last = new Sample(10_000, 500, 400, new TreeMap<>(), 390);
        timeline.add(last);

        String table = new DemoSummary("bursts", last, timeline, new WriterStats(), new ReleaseWindows.Densest("k0",
                21), 21, new DemoSummary.AllKeysSecond(0, 1, 40), true, 40).format();

        assertThat(table).containsPattern("accounted for +NOT ALL: 100 neither shaped nor rejected, 10 shaped but not"
                + " in the database").doesNotContain("lowest capacity");
    }

    @Test
    void shouldSayThereIsNoCapWhenNoTotalRateIsSet() {
        String table = summary(new DemoSummary.AllKeysSecond(0, 1, 75));

        assertThat(table).containsPattern("db capacity +no cap \\(--total-rate 0\\)")
                .containsPattern("densest second +75 rows of all keys released within one second\\n")
                .doesNotContain("EXCEEDED", "limit 1");
    }
}
