package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.testsupport.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Several limits per key and the window algorithms in the local fallback: an admission without Redis (as with none
 * configured, or while Redis is down), on a clock the test advances, so every figure is exact. The clock starts at
 * 0, so the windows (aligned to multiples of their length on the admission's clock) start with the test.
 */
class LocalLimitsTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1000 * MS;

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final AtomicInteger liveInstances = new AtomicInteger(1);
    private final AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT,
            Duration.ofMillis(100), Duration.ofSeconds(1), liveInstances::get, scheduler, scheduler::nanoTime);

    LocalLimitsTest() {
        admission.start();
        scheduler.runDue();
    }

    @AfterEach
    void close() {
        admission.close();
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static AdmissionPolicy policy(AdmissionAlgorithm algorithm, AdmissionLimit... limits) {
        return new AdmissionPolicy(algorithm, List.of(limits));
    }

    /** {@code amount} per {@code period}, with a token bucket's default burst (one period's amount). */
    private static AdmissionLimit limit(AdmissionAlgorithm algorithm, double amount, Duration period) {
        return new AdmissionLimit(amount, period.toMillis(), algorithm.hasBurst() ? Math.max(1, amount) : amount);
    }

    /** Moves the clock to {@code nanos} (never back). */
    private void at(long nanos) {
        long now = scheduler.nanoTime();
        assertThat(nanos).isGreaterThanOrEqualTo(now);
        scheduler.advance(Duration.ofNanos(nanos - now));
    }

    /** One decision at the clock's time, remembered with it. */
    private record Decision(long atNanos, AdmissionDecision decision) {
        boolean allowed() {
            return decision.allowed();
        }
    }

    /** Offers one record every {@code stepNanos} from now until {@code untilNanos}; returns every decision. */
    private List<Decision> offer(String key, AdmissionPolicy policy, long stepNanos, long untilNanos) {
        return offer(key, policy, stepNanos, untilNanos, Integer.MAX_VALUE);
    }

    /** As above, {@code records} at most ({@code stepNanos} 0: all at once, {@code untilNanos} included). */
    private List<Decision> offer(String key, AdmissionPolicy policy, long stepNanos, long untilNanos, int records) {
        List<Decision> decisions = new ArrayList<>();
        for (long t = scheduler.nanoTime(); (t < untilNanos || stepNanos == 0) && decisions.size() < records;
             t += stepNanos) {
            at(t);
            decisions.add(new Decision(t, admission.admit(key(key), policy, 1, null)));
        }
        return decisions;
    }

    private static long admittedBetween(List<Decision> decisions, long fromNanos, long toNanos) {
        return decisions.stream().filter(d -> d.allowed() && d.atNanos >= fromNanos && d.atNanos < toNanos).count();
    }

    /** The most admitted in any interval of {@code lengthNanos} (starting at an admission). */
    private static long mostInAnyInterval(List<Decision> decisions, long lengthNanos) {
        List<Long> times = decisions.stream().filter(Decision::allowed).map(Decision::atNanos).toList();
        long most = 0;
        int end = 0;
        for (int start = 0; start < times.size(); start++) {
            while (end < times.size() && times.get(end) < times.get(start) + lengthNanos) {
                end++;
            }
            most = Math.max(most, end - start);
        }
        return most;
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void tenPerSecondAndThirtyPerMinuteTogetherAdmitThirtyInTheFirstMinuteThenTheMinuteBinds(
            AdmissionAlgorithm algorithm) {
        // Given: 10 per second and 30 per minute, and a record offered every 10 ms (100/s) for two minutes
        AdmissionPolicy policy = policy(algorithm, limit(algorithm, 10, Duration.ofSeconds(1)),
                limit(algorithm, 30, Duration.ofMinutes(1)));
        List<Decision> decisions = offer("k", policy, 10 * MS, 120 * SECOND);

        // Then: 10/s binds first (10 in the first second), and the first minute admits exactly 30, all within its
        // first seconds
        assertThat(admittedBetween(decisions, 0, SECOND)).isEqualTo(10);
        assertThat(admittedBetween(decisions, 0, 60 * SECOND)).isEqualTo(30);
        assertThat(admittedBetween(decisions, 0, 4 * SECOND)).isEqualTo(30);
        if (algorithm == AdmissionAlgorithm.FIXED_WINDOW) {
            assertThat(admittedBetween(decisions, SECOND, 2 * SECOND)).isEqualTo(10);
            assertThat(admittedBetween(decisions, 2 * SECOND, 3 * SECOND)).isEqualTo(10);
        } else {
            // the first second's 10 fade out through the second: 9 of them pass
            assertThat(admittedBetween(decisions, SECOND, 2 * SECOND)).isEqualTo(9);
        }
        // And: from the 30th on, every refusal is the minute's (10/s stops binding), whose wait is the longest
        long thirtieth = decisions.stream().filter(Decision::allowed).skip(29).findFirst().orElseThrow().atNanos;
        List<Decision> later = decisions.stream()
                .filter(d -> !d.allowed() && d.atNanos > thirtieth && d.atNanos < 60 * SECOND).toList();
        assertThat(later).isNotEmpty().allSatisfy(d -> assertThat(d.decision.limit()).as("at %d ms", d.atNanos / MS)
                .isEqualTo(1));
        if (algorithm == AdmissionAlgorithm.FIXED_WINDOW) {
            // The fixed window waits for the minute's end, and the next minute admits 10/s again up to 30.
            Decision first = later.get(0);
            assertThat(first.decision.retryAfterMs()).isEqualTo((60 * SECOND - first.atNanos) / MS);
            assertThat(admittedBetween(decisions, 60 * SECOND, 61 * SECOND)).isEqualTo(10);
            assertThat(admittedBetween(decisions, 60 * SECOND, 120 * SECOND)).isEqualTo(30);
        } else {
            // The sliding window lets the first minute's 30 fade out: about 0.5/s through the second minute.
            assertThat(admittedBetween(decisions, 60 * SECOND, 61 * SECOND)).isZero();
            assertThat(admittedBetween(decisions, 60 * SECOND, 120 * SECOND)).isBetween(28L, 30L);
            assertThat(mostInAnyInterval(decisions, 60 * SECOND)).isLessThanOrEqualTo(60);
        }
    }

    @Test
    void tenPerSecondAndThirtyPerMinuteAsTokenBucketsAdmitThirtyFastThenTheMinutesRefill() {
        // Given: buckets of 10 at 10/s and of 30 at 0.5/s, and a record offered every 10 ms for two minutes
        AdmissionAlgorithm tb = AdmissionAlgorithm.TOKEN_BUCKET;
        AdmissionPolicy policy = policy(tb, limit(tb, 10, Duration.ofSeconds(1)), limit(tb, 30, Duration.ofMinutes(1)));
        List<Decision> decisions = offer("k", policy, 10 * MS, 120 * SECOND);

        // Then: the first 30 within about two seconds (10/s binds: the burst of 10, then 10/s)
        long thirtieth = decisions.stream().filter(Decision::allowed).skip(29).findFirst().orElseThrow().atNanos;
        assertThat(thirtieth).isBetween(1900 * MS, 2100 * MS);
        // And: then the minute's bucket, refilled at 0.5/s, binds: one record every two seconds, never 10/s again
        // (the one token the minute's bucket refilled during those two seconds goes at once, at 10/s)
        List<Decision> after = decisions.stream().filter(d -> d.atNanos > thirtieth).toList();
        assertThat(after.stream().filter(d -> !d.allowed() && d.atNanos >= 3 * SECOND))
                .allSatisfy(d -> assertThat(d.decision.limit()).isEqualTo(1));
        long later = admittedBetween(after, thirtieth, 120 * SECOND);
        assertThat(later).isBetween(58L, 60L); // (120 s - 2 s) x 0.5/s, plus what refilled meanwhile
        assertThat(mostInAnyInterval(after, 10 * SECOND)).isBetween(5L, 6L);
    }

    @Test
    void aRefusalTakesNothingFromAnyLimitAndWaitsForTheLongest() {
        // Given: buckets of 5 and of 3 tokens, refilled at 1/s and 0.1/s
        AdmissionAlgorithm tb = AdmissionAlgorithm.TOKEN_BUCKET;
        AdmissionPolicy policy = policy(tb, new AdmissionLimit(1, 1000, 5), new AdmissionLimit(1, 10_000, 3));
        // When: four records arrive at once
        for (int i = 0; i < 3; i++) {
            assertThat(admission.admit(key("k"), policy, 1, null).allowed()).isTrue();
        }
        AdmissionDecision refused = admission.admit(key("k"), policy, 1, null);
        // Then: the fourth is refused by the second bucket, which needs 10 s for a token
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(1);
        assertThat(refused.retryAfterMs()).isEqualTo(10_000);
        assertThat(refused.tokensLeft()).isCloseTo(0, within(1e-9));
        // And: the first bucket was not charged for it: 2 tokens are left there, so two records of a policy of the
        // first bucket alone pass, the third does not
        at(10 * SECOND - 1);
        assertThat(admission.admit(key("k"), policy, 1, null).allowed()).isFalse();
        at(10 * SECOND);
        AdmissionDecision later = admission.admit(key("k"), policy, 1, null);
        assertThat(later.allowed()).isTrue();
        assertThat(later.tokensLeft()).as("the least left: the second bucket's").isCloseTo(0, within(1e-9));
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#all")
    void aRetryAfterIsExactlyTheWaitUntilTheRecordFits(AdmissionAlgorithm algorithm) {
        // Given: 20 per second and 50 per 5 s, offered a record every 7 ms for 20 s; some refusals are asked again
        // after their retry-after (on a replay of the key's history, so that the question takes nothing from it)
        AdmissionPolicy policy = policy(algorithm, limit(algorithm, 20, Duration.ofSeconds(1)),
                limit(algorithm, 50, Duration.ofSeconds(5)));
        int checked = 0;
        List<Long> bindings = new ArrayList<>();
        for (long t = 0; t < 20 * SECOND; t += 7 * MS) {
            at(t);
            AdmissionDecision decision = admission.admit(key("offered"), policy, 1, null);
            if (decision.allowed()) {
                continue;
            }
            bindings.add((long) decision.limit());
            // The same state one ms before and at the retry-after, asked on a copy of the key's history: a twin key
            // that saw the same decisions (its own record taken now would change the answer).
            if (checked < 40 && t % (97 * MS) < 7 * MS) {
                checked++;
                assertThat(decision.retryAfterMs()).isPositive();
                // Rounded up to whole ms, and by a ms more where the wait's arithmetic in doubles lands a hair past a
                // whole ms: never early, at most 1 ms late.
                assertThat(fitsAfter(policy, t, decision.retryAfterMs() - 2)).as("at %d ms, 2 ms early: %s", t / MS,
                        decision).isFalse();
                assertThat(fitsAfter(policy, t, decision.retryAfterMs())).as("at %d ms, on time", t / MS).isTrue();
            }
        }
        assertThat(checked).isGreaterThan(10);
        assertThat(bindings).contains(0L, 1L);
    }

    /**
     * Replays what the offered key saw until {@code atNanos} on a fresh admission, then asks it {@code afterMs}
     * later whether one more record fits.
     */
    private boolean fitsAfter(AdmissionPolicy policy, long atNanos, long afterMs) {
        ManualScheduler clock = new ManualScheduler(0);
        try (AdmissionController replay = new AdmissionController(null, AdmissionMode.STRICT, Duration.ofMillis(100),
                Duration.ofSeconds(1), () -> 1, clock, clock::nanoTime)) {
            replay.start();
            for (long t = 0; t <= atNanos; t += 7 * MS) {
                clock.advance(Duration.ofNanos(t - clock.nanoTime()));
                replay.admit(key("offered"), policy, 1, null);
            }
            clock.advance(Duration.ofMillis(afterMs));
            return replay.admit(key("offered"), policy, 1, null).allowed();
        }
    }

    @Test
    void theFixedWindowCountsPerAlignedWindowAndAdmitsTwiceItsLimitAcrossABoundary() {
        // Given: at most 100 per second
        AdmissionAlgorithm fixed = AdmissionAlgorithm.FIXED_WINDOW;
        AdmissionPolicy policy = policy(fixed, limit(fixed, 100, Duration.ofSeconds(1)));
        // When: 150 records come 1 ms before the end of the first window, and 150 at its end
        at(999 * MS);
        int before = admitted("k", policy, 150);
        AdmissionDecision refused = admission.admit(key("k"), policy, 1, null);
        at(1000 * MS);
        int after = admitted("k", policy, 150);
        // Then: each window admits exactly 100, and the refusal waits for the window's end: 1 ms
        assertThat(before).isEqualTo(100);
        assertThat(refused.retryAfterMs()).isEqualTo(1);
        assertThat(refused.tokensLeft()).isZero();
        assertThat(after).isEqualTo(100);
        // So 200 records, twice the limit, passed within 1 ms: the fixed window's known burst at a boundary
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void aCostAboveAWindowsAmountNeverFits(AdmissionAlgorithm algorithm) {
        // (The admission step refuses such a record as INVALID_COST first; the states still answer sensibly.)
        AdmissionPolicy policy = policy(algorithm, limit(algorithm, 100, Duration.ofSeconds(1)));
        AdmissionDecision never = new LimitStates(policy, 0).tryTake(policy, 101, 0);
        assertThat(never.allowed()).isFalse();
        assertThat(never.retryAfterMs()).as("ten years, as the Redis scripts say").isEqualTo(
                AdmissionDecision.MAX_WAIT_MS);
    }

    /** Admits {@code times} unit-cost records at the clock's time; returns how many passed. */
    private int admitted(String key, AdmissionPolicy policy, int times) {
        int allowed = 0;
        for (int i = 0; i < times; i++) {
            if (admission.admit(key(key), policy, 1, null).allowed()) {
                allowed++;
            }
        }
        return allowed;
    }

    @Test
    void theSlidingWindowHasNoBurstAtABoundaryAndStaysUnderTwiceItsLimitInAnyWindow() {
        // Given: at most 100 per second, 100 records 1 ms before the end of the first window
        AdmissionAlgorithm sliding = AdmissionAlgorithm.SLIDING_WINDOW;
        AdmissionPolicy policy = policy(sliding, limit(sliding, 100, Duration.ofSeconds(1)));
        at(999 * MS);
        List<Decision> all = offer("k", policy, 0, 999 * MS, 150);
        assertThat(all.stream().filter(Decision::allowed).count()).isEqualTo(100);
        // When: the next window starts, nothing passes: the previous window still counts in full
        at(1000 * MS);
        AdmissionDecision refused = admission.admit(key("k"), policy, 1, null);
        assertThat(refused.allowed()).isFalse();
        // The previous 100 weigh 99 once 1 % of the window has passed: 10 ms
        assertThat(refused.retryAfterMs()).isEqualTo(10);
        // Then: offered 1,000/s from there, the window admits about 100 x the part of it that has passed
        List<Decision> decisions = offer("k", policy, MS, 3000 * MS);
        for (int tenth = 1; tenth <= 10; tenth++) {
            long admitted = admittedBetween(decisions, 1000 * MS, (1000 + 100L * tenth) * MS);
            assertThat(admitted).as("after %d %% of the window", 10 * tenth).isBetween(10L * tenth - 1, 10L * tenth);
        }
        // And: in no window-long interval more than twice the limit (199 in the worst case built here: the burst at
        // the end of one window, then steady pressure through the next), and in no 100 ms more than 109, where the
        // fixed window lets 200 through within 1 ms
        all.addAll(decisions);
        assertThat(mostInAnyInterval(all, SECOND)).isEqualTo(199);
        assertThat(mostInAnyInterval(all, 100 * MS)).isEqualTo(109);
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void underSteadyPressureAWindowAdmitsItsLimitPerWindow(AdmissionAlgorithm algorithm) {
        // Given: at most 100 per second, offered 1,000/s for 10 s
        AdmissionPolicy policy = policy(algorithm, limit(algorithm, 100, Duration.ofSeconds(1)));
        List<Decision> decisions = offer("k", policy, MS, 10 * SECOND);
        // Then: 100 in each aligned second (the sliding window 99 or 100: a window after a full one keeps one unit of
        // its limit for the weighted previous count until its very end)
        for (int s = 0; s < 10; s++) {
            assertThat(admittedBetween(decisions, s * SECOND, (s + 1) * SECOND)).as("second %d", s)
                    .isBetween(algorithm == AdmissionAlgorithm.FIXED_WINDOW || s == 0 ? 100L : 99L, 100L);
        }
        long worst100Ms = mostInAnyInterval(decisions, 100 * MS);
        if (algorithm == AdmissionAlgorithm.FIXED_WINDOW) {
            // All at each window's start
            assertThat(worst100Ms).isEqualTo(100);
        } else {
            // Spread: after the first window, about 10 per 100 ms
            assertThat(mostInAnyInterval(decisions.stream().filter(d -> d.atNanos >= SECOND).toList(), 100 * MS))
                    .isBetween(10L, 12L);
            assertThat(mostInAnyInterval(decisions, SECOND)).isLessThanOrEqualTo(101);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void extremeWindowsCountCorrectly(AdmissionAlgorithm algorithm) {
        // 1 ms windows: 3 per ms
        AdmissionPolicy tiny = policy(algorithm, limit(algorithm, 3, Duration.ofMillis(1)));
        at(5 * MS);
        assertThat(admitted("tiny", tiny, 5)).isEqualTo(3);
        AdmissionDecision refused = admission.admit(key("tiny"), tiny, 1, null);
        // the window's end; for the sliding window a third of the next window more, where the 3 weigh 2
        assertThat(refused.retryAfterMs()).isEqualTo(algorithm == AdmissionAlgorithm.FIXED_WINDOW ? 1 : 2);
        at(7 * MS); // two windows later: nothing left of either
        assertThat(admitted("tiny", tiny, 5)).isEqualTo(3);
        // One-year windows: 2 per year; the refusal waits until the year's end
        AdmissionPolicy year = policy(algorithm, limit(algorithm, 2, Duration.ofMillis(AdmissionLimit.MAX_PERIOD_MS)));
        assertThat(admitted("year", year, 3)).isEqualTo(2);
        AdmissionDecision yearly = admission.admit(key("year"), year, 1, null);
        long left = AdmissionLimit.MAX_PERIOD_MS - 7;
        if (algorithm == AdmissionAlgorithm.FIXED_WINDOW) {
            assertThat(yearly.retryAfterMs()).isEqualTo(left);
        } else {
            // The year's 2 weigh 1 at a half of the next year: the end of this one and half a year more
            assertThat(yearly.retryAfterMs()).isEqualTo(left + AdmissionLimit.MAX_PERIOD_MS / 2);
        }
    }

    @Test
    void theFallbackAdmitsThisInstancesShareOfEveryLimit() {
        // Given: 4 live instances, and 100 per second with 200 per minute
        liveInstances.set(4);
        scheduler.advance(Duration.ofSeconds(1)); // the next count of live instances
        AdmissionAlgorithm fixed = AdmissionAlgorithm.FIXED_WINDOW;
        AdmissionPolicy policy = policy(fixed, limit(fixed, 100, Duration.ofSeconds(1)),
                limit(fixed, 200, Duration.ofMinutes(1)));
        // Then: this instance admits a quarter of each: 25 per second, 50 per minute
        List<Decision> decisions = offer("k", policy, MS, 60 * SECOND);
        assertThat(admittedBetween(decisions, SECOND, 2 * SECOND)).isEqualTo(25);
        assertThat(admittedBetween(decisions, 0, 60 * SECOND)).isEqualTo(50);
    }

    @Test
    void aKeyKeepsItsCountsWhenItsRuleChangesItsAmountsAndForgetsThemWhenAWindowChangesItsLength() {
        AdmissionAlgorithm fixed = AdmissionAlgorithm.FIXED_WINDOW;
        AdmissionPolicy ten = policy(fixed, limit(fixed, 10, Duration.ofSeconds(1)), limit(fixed, 100,
                Duration.ofMinutes(1)));
        assertThat(admitted("k", ten, 8)).isEqualTo(8);
        // The per-second amount halved: the 8 counted stay, so nothing more fits in this second
        AdmissionPolicy five = policy(fixed, limit(fixed, 5, Duration.ofSeconds(1)), limit(fixed, 100,
                Duration.ofMinutes(1)));
        assertThat(admitted("k", five, 1)).isZero();
        // A window of another length counts afresh: 3 per 2 s (the minute's 8 still count)
        AdmissionPolicy other = policy(fixed, limit(fixed, 3, Duration.ofSeconds(2)), limit(fixed, 10,
                Duration.ofMinutes(1)));
        assertThat(admitted("k", other, 5)).isEqualTo(2);
    }
}
