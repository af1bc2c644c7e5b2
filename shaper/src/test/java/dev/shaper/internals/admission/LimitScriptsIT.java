package dev.shaper.internals.admission;

import static dev.shaper.internals.admission.AdmissionAlgorithms.current;
import static dev.shaper.internals.admission.AdmissionAlgorithms.previous;
import static dev.shaper.internals.admission.AdmissionAlgorithms.untilMicros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The limits scripts against a real redis-server of their own (on a free port): several token buckets per key
 * ({@code token-bucket.lua} with lists), {@code fixed-window.lua} and {@code sliding-window.lua}, through {@link
 * RedisLimits} as the shaper calls them and directly as another service would. Redis's clock (TIME) cannot
 * be advanced: tests use windows long enough that none ends during them (an hour, waiting out the rare hour that is
 * about to end), write a window's counters themselves to set up a state, or, where a boundary is the point, use
 * windows of a second and read where in its window each call fell from the script's own answer.
 */
class LimitScriptsIT {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LimitScriptsIT.class);

    private static final long HOUR_MS = 3_600_000;
    private static final long YEAR_MS = AdmissionLimit.MAX_PERIOD_MS;

    @RegisterExtension
    static final ScriptTestRedis redis = new ScriptTestRedis();
    private static final AtomicInteger KEYS = new AtomicInteger();

    private static String newKey() {
        return "limits-test-" + KEYS.incrementAndGet();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static AdmissionPolicy windows(AdmissionAlgorithm algorithm, double max, long windowMs, Object... more) {
        List<AdmissionLimit> limits = new ArrayList<>(List.of(new AdmissionLimit(max, windowMs, max)));
        for (int i = 0; i < more.length; i += 2) {
            double amount = ((Number) more[i]).doubleValue();
            limits.add(new AdmissionLimit(amount, ((Number) more[i + 1]).longValue(), amount));
        }
        return new AdmissionPolicy(algorithm, limits);
    }

    /** Redis's clock, in microseconds. */
    private static long redisMicros() {
        List<String> time = redis.sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    /** The name of the counter of {@code admissionKey}'s window of {@code windowMs} that holds {@code micros}. */
    private static String counter(String admissionKey, long windowMs, long micros) {
        return "shaper:win:{" + admissionKey + "}:" + windowMs + ":" + Math.floorDiv(micros, windowMs * 1000);
    }

    /** Returns once at least {@code neededMs} are left of the current window of {@code windowMs} on Redis's clock. */
    private static void awaitRoom(long windowMs, long neededMs) throws InterruptedException {
        long span = windowMs * 1000;
        long left = span - Math.floorMod(redisMicros(), span);
        if (left < neededMs * 1000) {
            Thread.sleep(left / 1000 + 2);
        }
    }

    /** Sleeps until {@code positionMs} into a window of {@code windowMs} on Redis's clock (the next one if past). */
    private static void sleepToPosition(long windowMs, long positionMs) throws InterruptedException {
        long span = windowMs * 1000;
        long position = Math.floorMod(redisMicros(), span);
        long target = positionMs * 1000;
        long sleepMicros = target >= position ? target - position : span - position + target;
        Thread.sleep(sleepMicros / 1000, (int) (sleepMicros % 1000) * 1000);
    }

    /** Runs {@code script} directly with one key and its four arguments, as another service would. */
    private static List<Object> run(AdmissionAlgorithm algorithm, String admissionKey, String first, String second,
                                    String cost, String mode) {
        return redis.sync().eval(algorithm.script().source(), ScriptOutputType.MULTI,
                new String[] {new String(LimitScript.keyName(algorithm, bytes(admissionKey)), StandardCharsets.UTF_8)},
                first, second, cost, mode);
    }

    private static SharedState take(String key, AdmissionPolicy policy, double cost) throws Exception {
        return redis.buckets().take(bytes(key), policy, cost);
    }

    // ---- the fixed window

    @Test
    void aFixedWindowAdmitsItsAmountPerAlignedWindowAndWaitsForItsEnd() throws Exception {
        String key = newKey();
        AdmissionPolicy policy = windows(AdmissionAlgorithm.FIXED_WINDOW, 5, HOUR_MS);
        awaitRoom(HOUR_MS, 10_000);
        long before = redisMicros();
        for (int i = 1; i <= 5; i++) {
            SharedState state = take(key, policy, 1);
            assertThat(state.allowed()).as("take %d", i).isTrue();
            assertThat(current(state)).containsExactly(i);
            assertThat(state.left()).containsExactly(5 - i);
        }
        SharedState refused = take(key, policy, 1);
        long after = redisMicros();
        assertThat(refused.allowed()).isFalse();
        assertThat(current(refused)).as("a refusal counts nothing").containsExactly(5);
        // The wait is the rest of the hour, which the reply also gives as until
        long hourEnd = (Math.floorDiv(before, HOUR_MS * 1000) + 1) * HOUR_MS * 1000;
        assertThat(refused.waitMicros()[0]).isEqualTo(untilMicros(refused)[0]).isBetween(hourEnd - after,
                hourEnd - before);
        assertThat(refused.toDecision().retryAfterMs()).isEqualTo((refused.waitMicros()[0] + 999) / 1000);
        // One string per window, named after the window, holding the count, alive for two windows
        String name = counter(key, HOUR_MS, before);
        assertThat(redis.sync().get(name)).isEqualTo("5");
        assertThat(redis.sync().type(name)).isEqualTo("string");
        assertThat(redis.sync().pttl(name)).isBetween(2 * HOUR_MS - 10_000, 2 * HOUR_MS);
        assertThat(redis.sync().keys("shaper:win:{" + key + "}*")).containsExactly(name);
    }

    @Test
    void severalWindowLimitsCountAllOrNoneAndWaitForTheLongest() throws Exception {
        // 5 per hour and 3 per day: the day binds at the 4th, and the hour's counter is not charged for it
        String key = newKey();
        long day = 24 * HOUR_MS;
        AdmissionPolicy policy = windows(AdmissionAlgorithm.FIXED_WINDOW, 5, HOUR_MS, 3, day);
        awaitRoom(HOUR_MS, 10_000);
        long before = redisMicros();
        for (int i = 0; i < 3; i++) {
            assertThat(take(key, policy, 1).allowed()).isTrue();
        }
        SharedState refused = take(key, policy, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()[0]).as("the hour allows it").isZero();
        assertThat(refused.waitMicros()[1]).isEqualTo(untilMicros(refused)[1]);
        AdmissionDecision decision = refused.toDecision();
        assertThat(decision.limit()).isEqualTo(1);
        assertThat(decision.retryAfterMs()).isEqualTo((untilMicros(refused)[1] + 999) / 1000);
        assertThat(redis.sync().get(counter(key, HOUR_MS, before))).isEqualTo("3");
        assertThat(redis.sync().get(counter(key, day, before))).isEqualTo("3");
        assertThat(redis.sync().pttl(counter(key, day, before))).isBetween(2 * day - 10_000, 2 * day);
        // A record of cost 2 fits neither... and one of cost 0 is asked only: allowed while within the limits
        SharedState ask = take(key, policy, 0);
        assertThat(ask.allowed()).isTrue();
        assertThat(ask.left()).containsExactly(2, 0);
    }

    @Test
    void theFixedWindowAdmitsTwiceItsAmountAcrossABoundary() throws Exception {
        // Given: 10 per second. 10 records 900 ms into a second, 10 more just after its end
        AdmissionPolicy policy = windows(AdmissionAlgorithm.FIXED_WINDOW, 10, 1000);
        for (int attempt = 1; ; attempt++) {
            String key = newKey();
            sleepToPosition(1000, 900);
            List<SharedState> first = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                first.add(take(key, policy, 1));
            }
            sleepToPosition(1000, 2);
            List<SharedState> second = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                second.add(take(key, policy, 1));
            }
            // (On a machine too busy to make the first ten calls within the 100 ms left, try again.)
            boolean oneWindowEach = current(first.get(9))[0] == 10 && current(second.get(9))[0] == 10;
            if (!oneWindowEach && attempt < 5) {
                continue;
            }
            // Then: all 20 passed, twice the limit, within far less than a window
            assertThat(first).allSatisfy(s -> assertThat(s.allowed()).isTrue());
            assertThat(second).allSatisfy(s -> assertThat(s.allowed()).isTrue());
            long spanMicros = untilMicros(first.get(0))[0] + 1_000_000 - untilMicros(second.get(9))[0];
            LOG.info("fixed window of 10 per second: 20 admitted within {} us across a boundary", spanMicros);
            assertThat(spanMicros).as("20 admitted within (us)").isLessThan(500_000);
            // And: the next one waits for the second window's end
            SharedState refused = take(key, policy, 1);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.waitMicros()[0]).isEqualTo(untilMicros(refused)[0]);
            return;
        }
    }

    // ---- the sliding window

    @Test
    void theSlidingWindowWeighsThePreviousWindowByHowMuchOfItIsStillCovered() throws Exception {
        // Given: 10 per hour, and 10 counted in the previous hour (written as the scripts write their counters)
        String key = newKey();
        AdmissionPolicy policy = windows(AdmissionAlgorithm.SLIDING_WINDOW, 10, HOUR_MS);
        awaitRoom(HOUR_MS, 10_000);
        long now = redisMicros();
        redis.sync().psetex(counter(key, HOUR_MS, now - HOUR_MS * 1000), 2 * HOUR_MS, "10");
        // When: a record is offered
        SharedState state = take(key, policy, 1);
        // Then: the estimate is 10 x the part of the previous hour still covered, until / span
        double weight = untilMicros(state)[0] / (HOUR_MS * 1000.0);
        assertThat(previous(state)).containsExactly(10);
        double count = current(state)[0];
        assertThat(state.left()[0]).isCloseTo(10 - count - 10 * weight, within(1e-9));
        // Admitted only if 10 x weight + 1 <= 10: at least a tenth of the hour has passed
        assertThat(state.allowed()).isEqualTo(10 * weight + 1 <= 10);
        if (!state.allowed()) {
            // and then the wait is until the weight is 0.9
            assertThat(state.waitMicros()[0]).isCloseTo((long) Math.ceil(untilMicros(state)[0] - 0.9 * HOUR_MS * 1000),
                    within(1L));
        }
    }

    @Test
    void aFullSlidingWindowWaitsIntoTheNextOneUntilItsCountWeighsLessThanTheLimitLessTheCost() throws Exception {
        // Given: 10 per hour, all 10 counted in this hour
        String key = newKey();
        AdmissionPolicy policy = windows(AdmissionAlgorithm.SLIDING_WINDOW, 10, HOUR_MS);
        awaitRoom(HOUR_MS, 10_000);
        redis.sync().psetex(counter(key, HOUR_MS, redisMicros()), 2 * HOUR_MS, "10");
        // When: a record of cost 2 is offered
        SharedState refused = take(key, policy, 2);
        // Then: it waits for the hour's end, and then until the 10 weigh 8: a fifth of the next hour
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()[0]).isEqualTo(untilMicros(refused)[0] + HOUR_MS * 1000 / 5);
        // And: a cost above the limit never fits: ten years
        assertThat(take(key, policy, 11).waitMicros()[0]).isEqualTo(315_360_000_000_000L);
    }

    @Test
    void theSlidingWindowHasNoBurstAtABoundary() throws Exception {
        // Given: 10 per second, 10 records 900 ms into a second
        AdmissionPolicy policy = windows(AdmissionAlgorithm.SLIDING_WINDOW, 10, 1000);
        for (int attempt = 1; ; attempt++) {
            String key = newKey();
            sleepToPosition(1000, 900);
            int first = 0;
            SharedState last = null;
            for (int i = 0; i < 10; i++) {
                last = take(key, policy, 1);
                first += last.allowed() ? 1 : 0;
            }
            if (current(last)[0] != 10 && attempt < 5) {
                continue; // the ten calls straddled the boundary on a busy machine: try again
            }
            assertThat(first).isEqualTo(10);
            // When: 10 more are offered just after the second's end
            sleepToPosition(1000, 2);
            List<SharedState> second = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                second.add(take(key, policy, 1));
            }
            // Then: each passes only once the previous 10 weigh at most 9 less what this second counted: a tenth
            // of the second per record, so none of them in the first tenth (the fixed window let all 10 through)
            for (SharedState s : second) {
                double weight = untilMicros(s)[0] / 1e6;
                double countBefore = current(s)[0] - (s.allowed() ? 1 : 0);
                assertThat(s.allowed()).isEqualTo(10 * weight + countBefore + 1 <= 10 + 1e-9);
            }
            SharedState firstAfter = second.get(0);
            if (untilMicros(firstAfter)[0] > 900_000) {
                assertThat(firstAfter.allowed()).isFalse();
                // The wait: until the previous 10 weigh 9
                assertThat(firstAfter.waitMicros()[0]).isCloseTo(untilMicros(firstAfter)[0] - 900_000, within(1L));
            }
            return;
        }
    }

    // ---- counters' lifetime

    /** Redis's clock now, in milliseconds. */
    private long redisMillis() {
        List<String> time = redis.sync().time();
        return Long.parseLong(time.get(0)) * 1_000 + Long.parseLong(time.get(1)) / 1_000;
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void aOneMillisecondWindowsCounterLivesTwoMillisecondsNeverZero(AdmissionAlgorithm algorithm) throws Exception {
        String key = newKey();
        String name = new String(LimitScript.keyName(algorithm, bytes(key)), StandardCharsets.UTF_8);
        // Redis's clock before the script, then the script and a read of its counters' expiry times and of the clock
        // in one transaction: nothing can expire in between (the clock may move on: the machine may stall)
        long beforeMs = redisMillis();
        redis.sync().multi();
        redis.sync().eval(algorithm.script().source(), ScriptOutputType.MULTI, new String[] {name}, "3", "1", "1",
                "take");
        redis.sync().eval("local t = redis.call('TIME') local out = {tonumber(t[1]) * 1000 + math.floor(tonumber(t[2])"
                + " / 1000)} for _, k in ipairs(redis.call('KEYS', ARGV[1])) do out[#out + 1] ="
                + " redis.call('PEXPIRETIME', k) end return out", ScriptOutputType.MULTI, new String[0], name + ":1:*");
        TransactionResult result = redis.sync().exec();
        List<Object> reply = result.get(0);
        assertThat(((Number) reply.get(0)).longValue()).isEqualTo(1);
        List<Object> read = result.get(1);
        long afterMs = ((Number) read.get(0)).longValue();
        // Then: one counter, set to expire two milliseconds after the script ran (between the two clock readings)
        assertThat(read.subList(1, read.size())).hasSize(1).allSatisfy(expiresAt -> assertThat(
                ((Number) expiresAt).longValue()).isBetween(beforeMs + 2, afterMs + 2));
        // And: it is gone soon after
        Thread.sleep(20);
        assertThat(redis.sync().keys(name + ":*")).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("dev.shaper.internals.admission.AdmissionAlgorithms#windows")
    void aOneYearWindowsCounterLivesTwoYears(AdmissionAlgorithm algorithm) throws Exception {
        String key = newKey();
        AdmissionPolicy policy = windows(algorithm, 2, YEAR_MS);
        long before = redisMicros();
        SharedState state = take(key, policy, 1);
        assertThat(state.allowed()).isTrue();
        String name = counter(key, YEAR_MS, before);
        assertThat(redis.sync().get(name)).isEqualTo("1");
        assertThat(redis.sync().pttl(name)).isBetween(2 * YEAR_MS - 10_000, 2 * YEAR_MS);
        take(key, policy, 1);
        SharedState refused = take(key, policy, 1);
        assertThat(refused.allowed()).isFalse();
        long yearEnd = (Math.floorDiv(before, YEAR_MS * 1000) + 1) * YEAR_MS * 1000;
        assertThat(untilMicros(refused)[0]).isBetween(yearEnd - redisMicros(), yearEnd - before);
        // The sliding window waits half of the next year more: until the year's 2 weigh 1
        long expected = untilMicros(refused)[0] + (algorithm == AdmissionAlgorithm.SLIDING_WINDOW ? YEAR_MS * 500 : 0);
        assertThat(refused.waitMicros()[0]).isEqualTo(expected);
        assertThat(refused.toDecision().retryAfterMs()).isEqualTo((expected + 999) / 1000);
    }

    // ---- NOSCRIPT, unusable counters, arguments

    @Test
    void aTakeOfEachScriptReloadsItAfterScriptFlushAndCountsOnce() throws Exception {
        awaitRoom(HOUR_MS, 10_000);
        for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
            String key = newKey();
            AdmissionPolicy policy = !algorithm.hasBurst() ? windows(algorithm, 10, HOUR_MS, 20, 24 * HOUR_MS)
                    : new AdmissionPolicy(algorithm, List.of(new AdmissionLimit(0.001, 1000, 10),
                    new AdmissionLimit(0.001, 1000, 20)));
            assertThat(take(key, policy, 1).left()[0]).isCloseTo(9, within(0.01));
            assertThat(redis.server().call("SCRIPT", "FLUSH")).isEqualTo("OK");
            SharedState after = take(key, policy, 1);
            assertThat(after.allowed()).isTrue();
            assertThat(after.left()[0]).as(algorithm + ": counted once, not twice").isCloseTo(8, within(0.01));
            assertThat(after.left()[1]).as(algorithm.configName()).isCloseTo(18, within(0.01));
            assertThat(redis.sync().scriptExists(algorithm.script().sha())).containsExactly(true);
        }
    }

    @Test
    void aChargeOfSeveralScriptsReloadsThemAfterScriptFlushAndChargesEachKeyOnce() throws Exception {
        awaitRoom(HOUR_MS, 10_000);
        AdmissionPolicy fixed = windows(AdmissionAlgorithm.FIXED_WINDOW, 100, HOUR_MS, 1000, 24 * HOUR_MS);
        AdmissionPolicy sliding = windows(AdmissionAlgorithm.SLIDING_WINDOW, 100, HOUR_MS);
        AdmissionPolicy buckets2 = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, List.of(
                new AdmissionLimit(0.001, 1000, 100), new AdmissionLimit(0.001, 1000, 50)));
        String a = newKey();
        String b = newKey();
        String c = newKey();
        redis.buckets().charge(List.of(new RedisLimits.Charge(bytes(a), fixed, new double[] {1}))).orThrow();
        assertThat(redis.server().call("SCRIPT", "FLUSH")).isEqualTo("OK");

        List<SharedState> states = redis.buckets().charge(List.of(
                new RedisLimits.Charge(bytes(a), fixed, new double[] {5}),
                new RedisLimits.Charge(bytes(b), sliding, new double[] {7}),
                new RedisLimits.Charge(bytes(c), buckets2, new double[] {60}))).orThrow();
        assertThat(current(states.get(0))).containsExactly(6, 6);
        assertThat(current(states.get(1))).containsExactly(7);
        assertThat(states.get(2).left()[0]).isCloseTo(40, within(0.01));
        assertThat(states.get(2).left()[1]).as("a charge may leave a debt").isCloseTo(-10, within(0.01));
        // What Redis holds, read directly: each key charged exactly once
        long now = redisMicros();
        assertThat(redis.sync().get(counter(a, HOUR_MS, now))).isEqualTo("6");
        assertThat(redis.sync().get(counter(b, HOUR_MS, now))).isEqualTo("7");
        assertThat(Double.parseDouble(redis.sync().hget("shaper:tb:{" + c + "}", "tokens.2"))).isCloseTo(-10, within(0.01));
    }

    @Test
    void aCounterHoldingSomethingElseMakesItsKeyUnusableAndSparesTheOthers() throws Exception {
        awaitRoom(HOUR_MS, 10_000);
        AdmissionPolicy policy = windows(AdmissionAlgorithm.SLIDING_WINDOW, 10, HOUR_MS, 100, 24 * HOUR_MS);
        String bad = newKey();
        String good = newKey();
        long now = redisMicros();
        // the day's counter of "bad" is a hash, its hour's counter fine: nothing of it may change
        redis.sync().psetex(counter(bad, HOUR_MS, now), 2 * HOUR_MS, "3");
        redis.sync().hset(counter(bad, 24 * HOUR_MS, now), "not", "a count");
        assertThatThrownBy(() -> take(bad, policy, 1)).isInstanceOf(BucketUnusableException.class)
                .hasMessageContaining("WRONGTYPE");
        List<SharedState> states = redis.buckets().charge(List.of(
                new RedisLimits.Charge(bytes(bad), policy, new double[] {1}),
                new RedisLimits.Charge(bytes(good), policy, new double[] {4}))).orThrow();
        assertThat(states.get(0)).isNull();
        assertThat(current(states.get(1))).containsExactly(4, 4);
        assertThat(redis.sync().get(counter(bad, HOUR_MS, now))).as("untouched").isEqualTo("3");
        // A string that is no whole number is no count either
        String odd = newKey();
        redis.sync().psetex(counter(odd, HOUR_MS, now), 2 * HOUR_MS, "1.5");
        assertThatThrownBy(() -> take(odd, windows(AdmissionAlgorithm.FIXED_WINDOW, 10, HOUR_MS), 1))
                .isInstanceOf(BucketUnusableException.class).hasMessageContaining("not a window count");
    }

    @ParameterizedTest(name = "{0}: max {1}, window {2}, cost {3}, mode {4}")
    @CsvSource(delimiter = '|', value = {
            "fixed-window   | 0.5   | 1000         | 1   | take   | max must be a number >= 1, got 0.5",
            "fixed-window   | abc   | 1000         | 1   | take   | max must be a number >= 1, got abc",
            "fixed-window   | 10    | 0            | 1   | take   | window must be a whole number of milliseconds from 1 to 315360000000, got 0",
            "sliding-window | 10    | 1.5          | 1   | take   | window must be a whole number of milliseconds",
            "sliding-window | 10    | 315360000001 | 1   | take   | window must be a whole number of milliseconds",
            "sliding-window | 10    | 1000         | -1  | take   | cost must be a whole number from 0 to 1e15, got -1",
            "fixed-window   | 10    | 1000         | 1.5 | charge | cost must be a whole number from 0 to 1e15, got 1.5",
            "fixed-window   | 10    | 1000         | 1   | steal  | mode must be take, charge or cap, got steal",
            "fixed-window   | 10,20 | 1000         | 1   | take   | max and window must list as many limits, got 2 and 1",
            "sliding-window | 10,20 | 1000,1000    | 1   | take   | window must be a different length for each limit",
            "fixed-window   | 10,20 | 1000,2000    | 1,2 | take   | cost must be one number, or for cap one per limit",
            "fixed-window   | 10,20 | 1000,2000    | 1,x | take   | cost must be one number, or for cap one per limit",
            "sliding-window | 10,20 | 1000,2000    | 1,x | cap    | cost must be a number >= 0, got x",
            "token-bucket   | 10,x  | 10,10        | 1   | take   | rate must be a number > 0, got x",
            "token-bucket   | 10,1  | 10,0.5       | 1   | take   | burst must be a number >= 1, got 0.5",
            "token-bucket   | 10,1  | 10           | 1   | take   | rate and burst must list as many limits, got 2 and 1",
            "token-bucket   | 10,1  | 10,10        | 1,2,3 | cap  | cost must be one number or one per limit",
            "token-bucket   | 10,1  | 10,10        | 1,x | charge | cost must be a number >= 0, got x",
            "token-bucket   | 10,1  | 10,10        | 1   | steal  | mode must be take, charge or cap, got steal",
    })
    void invalidArgumentsGiveAClearRedisErrorAndChangeNothing(AdmissionAlgorithm algorithm, String first,
                                                              String second, String cost, String mode,
                                                              String message) {
        String key = newKey();
        assertThatThrownBy(() -> run(algorithm, key, first, second, cost, mode))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("ERR " + algorithm + ": " + message);
        assertThat(redis.sync().keys("shaper:*{" + key + "}*")).as("nothing written").isEmpty();
    }

    @Test
    void countersCarryTheAdmissionKeyAsAClusterHashTag() throws Exception {
        byte[] name = LimitScript.keyName(AdmissionAlgorithm.FIXED_WINDOW, bytes("tenant-42"));
        assertThat(new String(name, StandardCharsets.UTF_8)).isEqualTo("shaper:win:{tenant-42}");
        assertThat(LimitScript.keyName(AdmissionAlgorithm.SLIDING_WINDOW, bytes("tenant-42"))).isEqualTo(name);
        String key = newKey();
        take(key, windows(AdmissionAlgorithm.SLIDING_WINDOW, 10, 1000, 100, HOUR_MS), 1);
        List<String> counters = redis.sync().keys("shaper:win:{" + key + "}:*");
        assertThat(counters).hasSize(2).allSatisfy(counter -> assertThat(SlotHash.getSlot(counter))
                .isEqualTo(SlotHash.getSlot(key)));
    }

    @Test
    void capRaisesAWindowsCountSoThatAtMostTheCeilingIsLeftAndNeverLowersIt() throws Exception {
        awaitRoom(HOUR_MS, 10_000);
        String key = newKey();
        AdmissionPolicy policy = windows(AdmissionAlgorithm.FIXED_WINDOW, 10, HOUR_MS, 100, 24 * HOUR_MS);
        take(key, policy, 2);
        List<SharedState> capped = redis.buckets().cap(List.of(new RedisLimits.Charge(bytes(key), policy,
                new double[] {3, 200})));
        assertThat(current(capped.get(0))).as("the hour raised to 7, the day's 2 left alone").containsExactly(7, 2);
        assertThat(capped.get(0).left()).containsExactly(3, 98);
        capped = redis.buckets().cap(List.of(new RedisLimits.Charge(bytes(key), policy,
                new double[] {5, 200})));
        assertThat(current(capped.get(0))).as("never lowered").containsExactly(7, 2);
    }

    // ---- several token buckets per key

    @Test
    void severalTokenBucketsLiveInTheKeysOneHashAndAreTakenAllOrNone() throws Exception {
        String key = newKey();
        AdmissionPolicy policy = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, List.of(
                new AdmissionLimit(0.001, 1000, 5), new AdmissionLimit(0.002, 1000, 3)));
        for (int i = 0; i < 3; i++) {
            assertThat(take(key, policy, 1).allowed()).isTrue();
        }
        SharedState refused = take(key, policy, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.left()[0]).as("the first bucket keeps its 2").isCloseTo(2, within(0.01));
        assertThat(refused.left()[1]).isCloseTo(0, within(0.01));
        assertThat(refused.waitMicros()[0]).isZero();
        assertThat(refused.waitMicros()[1]).isBetween(490_000_000L, 500_000_000L); // 1 token at 0.002/s
        assertThat(refused.toDecision().limit()).isEqualTo(1);
        String hash = "shaper:tb:{" + key + "}";
        assertThat(redis.sync().hgetall(hash)).containsOnlyKeys("tokens", "ts", "tokens.2", "ts.2");
        // TTL: the longer of the two limits' (2 x 5 tokens / 0.001/s = 10,000 s; 2 x 3 / 0.002 = 3,000 s)
        assertThat(redis.sync().pttl(hash)).isBetween(9_990_000L, 10_000_000L);
        // The first limit's bucket is the hash's one bucket of the single-limit contract: same fields, same balance
        AdmissionDecision single = redis.buckets().take(bytes(key), AdmissionPolicy.of(new AdmissionRule(0.001, 5)), 1)
                .toDecision();
        assertThat(single.allowed()).isTrue();
        assertThat(single.tokensLeft()).isCloseTo(1, within(0.01));
        // Cap sets a ceiling per limit
        List<SharedState> capped = redis.buckets().cap(List.of(new RedisLimits.Charge(bytes(key), policy,
                new double[] {0.5, 2})));
        assertThat(capped.get(0).left()[0]).isCloseTo(0.5, within(0.01));
        assertThat(capped.get(0).left()[1]).as("never raised").isCloseTo(0, within(0.01));
    }

    // ---- what the observer is told

    @Test
    void everyCallTellsTheObserverItsKindAndAnEmptyChargeTellsNothing() throws Exception {
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (RedisLimits own = new RedisLimits(redis.server().uri(), Duration.ofSeconds(2),
                Duration.ofMillis(100))) {
            own.observeCalls((command, nanos) -> told.add(command + (nanos > 0 ? "" : " in no time")));
            String key = newKey();
            AdmissionPolicy window = windows(AdmissionAlgorithm.FIXED_WINDOW, 10, HOUR_MS);
            AdmissionPolicy rule = AdmissionPolicy.of(new AdmissionRule(0.001, 10));

            own.take(bytes(key), rule, 1);
            own.take(bytes(key), window, 1);
            own.charge(List.of(new RedisLimits.Charge(bytes(key), rule, new double[] {1})));
            own.cap(List.of(new RedisLimits.Charge(bytes(key), rule, new double[] {5})));
            own.charge(List.of(new RedisLimits.Charge(bytes(key), window, new double[] {1})));
            own.cap(List.of(new RedisLimits.Charge(bytes(key), window, new double[] {5})));
            assertThat(own.charge(List.of()).states()).isEmpty();
            assertThat(own.cap(List.of())).isEmpty();
            own.ping();
            own.probeScript(AdmissionAlgorithm.TOKEN_BUCKET);
        }
        assertThat(told).containsExactly("take", "take", "charge", "charge", "charge", "charge", "ping", "ping");
    }
}
