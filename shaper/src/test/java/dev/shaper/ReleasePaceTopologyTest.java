package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ShaperDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The release schedule against stall patterns of the stream thread, time advanced by the test: no second above the
 * bound {@link ReleasePace} states (rate + 1), and within it the exact rate, making up what stalls cost one record a
 * second, at the default tick (which follows the rates of the keys waiting).
 */
class ReleasePaceTopologyTest {

    /** A key's backlog and when each of its records left, in milliseconds since the driver started. */
    private static final class Releases {
        final List<Long> at = new ArrayList<>();
        /** What the key's rate gives over the span a test looks at. */
        double expected;

        void collect(ShaperDriver shaper, long nowMs) {
            int n = shaper.readShaped().size();
            for (int i = 0; i < n; i++) {
                at.add(nowMs);
            }
        }

        /** {@code ms} milliseconds on time, collecting the releases of each. */
        long run(ShaperDriver shaper, long fromMs, long ms) {
            for (long t = fromMs + 1; t <= fromMs + ms; t++) {
                shaper.advance(Duration.ofMillis(1));
                collect(shaper, t);
            }
            return fromMs + ms;
        }

        int countFrom(long fromMs) {
            return (int) at.stream().filter(t -> t >= fromMs).count();
        }

        int densestSecond() {
            int densest = 0;
            for (int i = 0, j = 0; i < at.size(); i++) {
                while (at.get(i) - at.get(j) >= 1_000) {
                    j++;
                }
                densest = Math.max(densest, i - j + 1);
            }
            return densest;
        }
    }

    private static ShaperDriver backlog(double rate, int records, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(rate),
                ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, Integer.toString(records),
                ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, "3600000"));
        settings.putAll(extra);
        ShaperDriver shaper = ShaperDriver.start(settings);
        for (int i = 0; i < records; i++) {
            shaper.send("k", "v" + i);
        }
        shaper.readShaped(); // the first passes at once
        return shaper;
    }

    /**
     * Commits as a 2-core machine under exactly-once shows them: every 100 ms the stream thread stalls 5 to 15 ms,
     * and one commit in fifty 30 to 130 ms. Over 20 s a key at 7/s or 50/s gets its rate within 0.5 %: one record a
     * second, what its window has room for, makes up the long commits. No second holds more than rate + 1.
     */
    @ParameterizedTest(name = "{0}/s")
    @ValueSource(doubles = {7, 50})
    void shouldKeepTheExactRateAndTheBoundWhenCommitsStallTheStreamThread(double rate) {
        Random random = new Random(11);
        Releases releases = commitsFor20Seconds(rate,
                () -> random.nextInt(50) == 0 ? 30 + random.nextInt(101) : 5 + random.nextInt(11));
        assertThat((double) releases.countFrom(1_000)).isBetween(releases.expected * 0.995 - 1,
                releases.expected * 1.005 + 1);
        assertThat(releases.densestSecond()).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(rate));
    }

    /**
     * The same commits at 1,000/s: one record a second cannot make up a commit longer than the 8 ms a key makes up
     * at once (10 to 130 records) before the next one, so the bound wins over the exact rate: no second above 1,001,
     * and the key gets its rate while the stream thread runs; it loses at most the time the commits stalled it.
     */
    @Test
    void shouldKeepAFastKeyWithinItsBoundAndItsRateWhileTheStreamThreadRunsWhenCommitsStallIt() {
        Random random = new Random(11);
        long[] stalledMs = {0};
        Releases releases = commitsFor20Seconds(1000, () -> {
            long stall = random.nextInt(50) == 0 ? 30 + random.nextInt(101) : 5 + random.nextInt(11);
            stalledMs[0] += stall;
            return stall;
        });
        assertThat((double) releases.countFrom(1_000)).isBetween(releases.expected - stalledMs[0] - 1,
                releases.expected + 1);
        assertThat(releases.densestSecond()).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(1000));
    }

    /**
     * With only commits a key makes up at once (5 to 8 ms, see ReleasePace.jitterMemoryNanos), it keeps its exact
     * rate and stays within rate + 1, at every rate.
     */
    @ParameterizedTest(name = "{0}/s")
    @ValueSource(doubles = {7, 50, 1000})
    void shouldKeepEverySecondWithinTheSteadyBoundWhenOnlyCommonCommitsStall(double rate) {
        Random random = new Random(5);
        Releases releases = commitsFor20Seconds(rate, () -> 5 + random.nextInt(4));
        assertThat((double) releases.countFrom(1_000)).isBetween(releases.expected * 0.995 - 1,
                releases.expected * 1.005 + 1);
        assertThat(releases.densestSecond()).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(rate));
    }

    /**
     * A key at {@code rate} with a deep backlog, for 20 s of 100 ms on time each followed by a stall of
     * {@code stallMs} (a commit); {@link Releases#expected} is what the rate gives from 1 s on (the first second may
     * hold the one that passed at arrival).
     */
    private static Releases commitsFor20Seconds(double rate, java.util.function.LongSupplier stallMs) {
        try (ShaperDriver shaper = backlog(rate, (int) (rate * 30), Map.of())) {
            Releases releases = new Releases();
            long now = 0;
            while (now < 20_000) {
                now = releases.run(shaper, now, 100);
                long stall = stallMs.getAsLong();
                shaper.stall(Duration.ofMillis(stall));
                now += stall;
                releases.collect(shaper, now);
            }
            releases.expected = rate * (now - 1_000) / 1000.0;
            return releases;
        }
    }

    @Test
    void shouldMakeUpAStallBelowTheCatchUpBoundWithoutABurst() {
        try (ShaperDriver shaper = backlog(50, 2_000, Map.of())) {
            Releases releases = new Releases();
            releases.run(shaper, 0, 2_000);

            // When: the stream thread stalls 150 ms (below shaper.shaping.catchup.max.ms, 200 ms by default)
            shaper.stall(Duration.ofMillis(150));
            releases.collect(shaper, 2_150);
            int atTheLateTick = releases.countFrom(2_150);
            releases.run(shaper, 2_150, 12_000);

            // Then: no burst: the late tick lets go of what a normal stall holds back (9 ms) and a tick (10 ms)
            assertThat(atTheLateTick).isLessThanOrEqualTo(2);
            // And: the 7.5 records the stall held back are made up within 12 s, one a second above the rate: 50/s x
            // 12.15 s = 607.5, less at most the tick's worth a key may stay behind its dues (half a record)
            assertThat(releases.countFrom(2_001)).isBetween(607, 609);
            assertThat(releases.densestSecond()).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(50));
        }
    }

    @Test
    void shouldForgetAStallBeyondTheCatchUpBoundAndResumeAtTheRate() {
        try (ShaperDriver shaper = backlog(10, 500, Map.of(ShaperConfig.SHAPING_CATCHUP_MAX_MS_CONFIG, "300"))) {
            Releases releases = new Releases();
            releases.run(shaper, 0, 1_000);

            // When: the stream thread stalls 3 s, ten times the catch-up bound
            shaper.stall(Duration.ofSeconds(3));
            releases.collect(shaper, 4_000);
            int atTheLateTick = releases.countFrom(4_000);
            releases.run(shaper, 4_000, 20_000);

            // Then: no catch-up burst (the record due and what a normal stall holds back, 49 ms: two at most), and
            // of the 3 s only the bound's 300 ms (3 records) is made up: 20 s at 10/s and those 3, with a record of
            // slack for where the ticks fall
            assertThat(atTheLateTick).isLessThanOrEqualTo(2);
            assertThat(releases.countFrom(4_000)).isBetween(202, 204);
            assertThat(releases.densestSecond()).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(10));
        }
    }

    @Test
    void shouldReleaseAFastKeyInSmallStepsAtTheDefaultTick() {
        // Given: the default tick (100 ms) and a key at 50/s with a backlog
        try (ShaperDriver shaper = backlog(50, 200, Map.of())) {
            // When: one second passes, on time
            List<Integer> perTenMs = new ArrayList<>();
            for (int t = 0; t < 1_000; t += 10) {
                shaper.advance(Duration.ofMillis(10));
                perTenMs.add(shaper.readShaped().size());
            }

            // Then: the tick follows the key's rate (10 ms, half its interval): one record at a time, 50 in the
            // second, instead of five every 100 ms
            assertThat(perTenMs).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(1));
            assertThat(perTenMs.stream().mapToInt(Integer::intValue).sum()).isBetween(49, 51);
        }
    }
}
