package dev.shaper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    private static Measurement run(BenchApp app, double seconds) {
        return new Measurement("exactly_once_v2", Scenario.UNQUEUED, app, 1_000, 1_000, 0, 0.1, seconds, seconds,
                0.5, 0.6, 0, new OutputCounter.QueueStats(0, 0, 0, 0, 0, 0), 1.0, 0.0, null);
    }

    private static String ratioLine(String table, String app) {
        String ratios = table.substring(table.indexOf("the apps / pass-through"));
        return ratios.lines().filter(l -> l.contains("| " + app + " ")).findFirst().orElseThrow();
    }

    @Test
    void quotesEveryAppAgainstThePassThroughAndTheShaperAgainstTheShaperAlone() {
        String table = ResultTable.format(List.of(), List.of(run(BenchApp.PASS_THROUGH, 1.0),
                run(BenchApp.SHAPER, 2.0), run(BenchApp.SHAPER_BATCHED, 2.5)));
        assertThat(ratioLine(table, "shaper")).contains("| 0.500 |");
        assertThat(ratioLine(table, "shaper+batched")).contains("| 0.400 |").endsWith("| 0.800");
    }

    @Test
    void withoutAPassThroughInTheRunStillQuotesAnAppAgainstTheShaper() {
        String table = ResultTable.format(List.of(), List.of(run(BenchApp.SHAPER, 2.0),
                run(BenchApp.SHAPER_BATCHED, 2.5)));
        assertThat(ratioLine(table, "shaper+batched")).contains("| n/a ").endsWith("| 0.800");
    }
}
