package dev.shaper.internals.capacity.adaptive;

import static dev.shaper.internals.capacity.adaptive.FeedbackScript.START_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What either controller must do inside the loop, on recorded feedback with time advanced by the test: the promises
 * of docs/capacity.md (fall by 30 % within three decisions, back to the maximum within 30 s, never out of bounds, errors cut,
 * silence holds, the warm-up ramps). Each controller's test class runs these.
 */
abstract class ClosedLoopContract {

    static final double MAX = 1_000;
    static final double MIN = 100;
    static final double TARGET_MS = 50;
    static final long ADJUST_MS = 1_000;
    static final long TIMEOUT_MS = 5_000;
    static final long WARMUP_MS = 30_000;

    /** The controller under test. */
    abstract ControllerKind kind();

    AdaptiveSettings settings() {
        return new AdaptiveSettings(new CapacityBounds(MIN, MAX), TARGET_MS, 0.01, ADJUST_MS, TIMEOUT_MS, WARMUP_MS,
                kind());
    }

    private FeedbackScript script(boolean restoredRecords) {
        return new FeedbackScript(AdaptiveCapacity.start(settings(), START_MS, restoredRecords), ADJUST_MS);
    }

    @Test
    void shouldFallAtLeast30PercentWithinThreeDecisionsWhenTheP99IsAboveTheTarget() {
        // Given: a loop at the maximum, writers healthy
        FeedbackScript script = script(false);
        assertThat(script.intervals(5, 900, 0, 20)).last().extracting(CapacityDecision::capacity).isEqualTo(MAX);

        // When: the p99 goes above the target, only just, for three decisions
        List<CapacityDecision> decisions = script.intervals(3, 900, 0, TARGET_MS * 1.05);

        // Then: the capacity falls at every decision, for the latency, to at most 70 % of where it was
        assertThat(decisions).extracting(CapacityDecision::reason).containsOnly(Reason.LATENCY);
        assertThat(decisions.get(0).capacity()).isLessThan(MAX);
        assertThat(decisions.get(1).capacity()).isLessThan(decisions.get(0).capacity());
        assertThat(decisions.get(2).capacity()).isLessThanOrEqualTo(0.7 * MAX);
        assertThat(decisions.get(2).latencyP99Ms()).isEqualTo(TARGET_MS * 1.05);
    }

    @Test
    void shouldReturnToTheMaximumWithin30SecondsWhenTheP99IsBackUnderTheTarget() {
        // Given: a slow database has held the capacity at the minimum
        FeedbackScript script = script(false);
        assertThat(script.intervals(20, 300, 0, TARGET_MS * 3)).last().extracting(CapacityDecision::capacity)
                .isEqualTo(MIN);

        // When: the p99 is back under the target, only just, for 30 s of decisions
        List<CapacityDecision> decisions = script.intervals(30, 300, 0, TARGET_MS * 0.95);

        // Then: the capacity rises at every decision until it is at the maximum, within those 30 s
        assertThat(decisions).extracting(CapacityDecision::reason).containsOnly(Reason.HEALTHY);
        assertThat(decisions).last().extracting(CapacityDecision::capacity).isEqualTo(MAX);
        for (int i = 1; i < decisions.size(); i++) {
            assertThat(decisions.get(i).capacity()).isGreaterThanOrEqualTo(decisions.get(i - 1).capacity());
        }
    }

    @Test
    void shouldNeverLeaveTheBoundsWhenTheFeedbackSwingsAndFallsSilent() {
        // Given: a recorded hour of feedback swinging from healthy to four times the target, with errors and silences
        List<double[]> recorded = recordedHour();
        FeedbackScript script = script(true);

        // When: the loop decides on it, second by second
        List<CapacityDecision> decisions = play(script, recorded);

        // Then: every capacity is within [min, max], and both ends are reached
        assertThat(decisions).allSatisfy(d -> assertThat(d.capacity()).isBetween(MIN, MAX));
        assertThat(decisions).extracting(CapacityDecision::capacity).contains(MIN, MAX);
    }

    @Test
    void shouldDecideTheSameCapacitiesWhenGivenTheSameFeedback() {
        // Given: two loops, as on two instances
        FeedbackScript first = script(false);
        FeedbackScript second = script(false);

        // When: both decide on the same recorded feedback
        List<double[]> recorded = recordedHour();

        // Then: they decide the same capacities, decision by decision
        assertThat(play(first, recorded)).isEqualTo(play(second, recorded));
    }

    @Test
    void shouldFallWhenTheErrorRatioIsAboveItsBound() {
        // Given: a loop at the maximum, writers healthy
        FeedbackScript script = script(false);
        script.intervals(3, 1_000, 0, 20);

        // When: 2 % of the writes fail (the bound is 1 %) while the latency is fine
        CapacityDecision decision = script.interval(980, 20, 20);

        // Then: the capacity falls, for the errors, which the decision shows
        assertThat(decision.capacity()).isLessThan(MAX);
        assertThat(decision.reason()).isEqualTo(Reason.ERRORS);
        assertThat(decision.errorRatio()).isCloseTo(0.02, within(1e-9));
    }

    @Test
    void shouldHoldTheCapacityAndFlagItWhenTheWritersFallSilent() {
        // Given: a slow database has cut the capacity
        FeedbackScript script = script(false);
        double cut = script.intervals(2, 500, 0, TARGET_MS * 2).get(1).capacity();
        assertThat(cut).isLessThan(MAX);

        // When: the writers fall silent for 10 s (the timeout is 5 s; the newest report ended 5 ms before the cut)
        List<CapacityDecision> silent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            silent.add(script.silentInterval());
        }

        // Then: the capacity holds throughout; for the first 4 s the last picture stands, from the 5th the loop
        // flags that feedback is missing
        assertThat(silent).extracting(CapacityDecision::capacity).containsOnly(cut);
        assertThat(silent.subList(0, 4)).extracting(CapacityDecision::reason).containsOnly(Reason.LATENCY);
        assertThat(silent.subList(4, 10)).extracting(CapacityDecision::reason).containsOnly(Reason.NO_FEEDBACK);
        assertThat(silent.get(9).latencyP99Ms()).isNaN();

        // And when: they report again, healthy
        CapacityDecision back = script.interval(500, 0, 20);

        // Then: the loop decides on their reports again
        assertThat(back.reason()).isEqualTo(Reason.HEALTHY);
        assertThat(back.capacity()).isGreaterThan(cut);
    }

    @Test
    void shouldFlagMissingFeedbackWhenTheWritersFallSilent() {
        // Given: healthy writers
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(), START_MS, false);
        FeedbackScript script = new FeedbackScript(loop, ADJUST_MS);
        script.intervals(2, 500, 0, 20);
        assertThat(loop.feedbackMissing()).isFalse();

        // When: they fall silent for the timeout
        for (int i = 0; i < 5; i++) {
            script.silentInterval();
        }

        // Then: the loop says feedback is missing, and no more once they report again
        assertThat(loop.feedbackMissing()).isTrue();
        script.interval(500, 0, 20);
        assertThat(loop.feedbackMissing()).isFalse();
    }

    @Test
    void shouldStartAtTheMinimumAndRiseNoFasterThanTheWarmUpWhenRecordsWereRestored() {
        // Given: a start that restored queued records
        AdaptiveCapacity loop = AdaptiveCapacity.start(settings(), START_MS, true);
        FeedbackScript script = new FeedbackScript(loop, ADJUST_MS);
        assertThat(loop.capacity()).isEqualTo(MIN);

        // When: the writers are healthy for 40 s
        List<CapacityDecision> decisions = script.intervals(40, 800, 0, 10);

        // Then: the capacity follows the warm-up's line from the minimum, reaching the maximum after 30 s
        for (int i = 0; i < decisions.size(); i++) {
            double elapsedMs = (i + 1) * ADJUST_MS;
            double ceiling = Math.min(MAX, MIN + (MAX - MIN) * elapsedMs / WARMUP_MS);
            assertThat(decisions.get(i).capacity()).as("after %s ms", elapsedMs)
                    .isLessThanOrEqualTo(ceiling + 1e-9);
        }
        assertThat(decisions.get(14).capacity()).isCloseTo(MIN + (MAX - MIN) / 2, within(1e-9));
        assertThat(decisions.get(14).reason()).isEqualTo(Reason.WARMING_UP);
        assertThat(decisions.get(29).capacity()).isEqualTo(MAX);
        assertThat(decisions.get(39).reason()).isEqualTo(Reason.HEALTHY);
    }

    @Test
    void shouldCutBelowTheWarmUpAtOnceWhenTheDatabaseIsSlowDuringIt() {
        // Given: 10 s into a warm-up (ceiling 400/s), writers healthy
        FeedbackScript script = script(true);
        double warming = script.intervals(10, 300, 0, 10).get(9).capacity();
        assertThat(warming).isCloseTo(400, within(1e-9));

        // When: the database slows down
        CapacityDecision decision = script.interval(300, 0, TARGET_MS * 3);

        // Then: the capacity falls below where it was, for the latency, though the ceiling has risen
        assertThat(decision.capacity()).isLessThan(warming);
        assertThat(decision.reason()).isEqualTo(Reason.LATENCY);
    }

    @Test
    void shouldWarmUpToTheMaximumWhenNoWriterReportsYet() {
        // Given: a start that restored queued records, and no writer reporting
        FeedbackScript script = script(true);
        List<CapacityDecision> decisions = new ArrayList<>();

        // When: 30 s pass
        for (int i = 0; i < 30; i++) {
            decisions.add(script.silentInterval());
        }

        // Then: the capacity followed the warm-up to the maximum, where it holds for lack of feedback
        assertThat(decisions.get(14).capacity()).isCloseTo(MIN + (MAX - MIN) / 2, within(1e-9));
        assertThat(decisions.get(29).capacity()).isEqualTo(MAX);
        assertThat(decisions.get(29).reason()).isEqualTo(Reason.NO_FEEDBACK);
    }

    /**
     * An hour, second by second, of {writes, errors, p99 ms} (negative writes: a silent second): a database that is
     * healthy for minutes, slow for seconds to a minute, with bursts of errors and writers falling silent.
     */
    static List<double[]> recordedHour() {
        Random random = new Random(17);
        List<double[]> seconds = new ArrayList<>(3_600);
        while (seconds.size() < 3_600) {
            int phase = random.nextInt(4);
            int length = 1 + random.nextInt(phase == 0 ? 120 : 30);
            for (int i = 0; i < length; i++) {
                switch (phase) {
                    case 0 -> seconds.add(new double[] {800, 0, 5 + random.nextDouble() * 30});
                    case 1 -> seconds.add(new double[] {300, 0, TARGET_MS * (1 + 3 * random.nextDouble())});
                    case 2 -> seconds.add(new double[] {500, 5 + random.nextInt(50), 20});
                    default -> seconds.add(new double[] {-1, 0, 0});
                }
            }
        }
        return seconds.subList(0, 3_600);
    }

    static List<CapacityDecision> play(FeedbackScript script, List<double[]> recorded) {
        List<CapacityDecision> decisions = new ArrayList<>(recorded.size());
        for (double[] second : recorded) {
            decisions.add(second[0] < 0 ? script.silentInterval()
                    : script.interval((long) second[0], (long) second[1], second[2]));
        }
        return decisions;
    }
}
