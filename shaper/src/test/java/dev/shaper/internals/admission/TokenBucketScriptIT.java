package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
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

/**
 * The token-bucket script against a real redis-server (its own, on a free port). Redis's clock (TIME) cannot be
 * controlled, so time-dependent figures are checked against bounds derived from the elapsed time measured
 * around the calls, or use rates so low that the refill during a test is negligible (0.001 token/s: under
 * 0.01 token in 10 s). Where a test needs time to pass, it moves the bucket's last refill into the past
 * ({@link #shiftBucketTime}) instead of waiting.
 */
class TokenBucketScriptIT {

    /** Rate at which refill during a test is negligible. */
    private static final double SLOW = 0.001;
    /** Ten years, the script's TTL ceiling, in ms. */
    private static final long TEN_YEARS_MS = 315_360_000_000L;

    @RegisterExtension
    static final ScriptTestRedis redis = new ScriptTestRedis();
    private static final AtomicInteger KEYS = new AtomicInteger();

    /** A fresh admission key per use, so that tests share the server without sharing buckets. */
    private static String newKey() {
        return "script-test-" + KEYS.incrementAndGet();
    }

    private static final String SOURCE = AdmissionAlgorithm.TOKEN_BUCKET.script().source();
    private static final String SHA = AdmissionAlgorithm.TOKEN_BUCKET.script().sha();

    /** One bucket's reply, under the single-number contract another service uses. */
    private record Result(boolean allowed, double tokensLeft, long waitMicros, SharedState state) {

        /** The decision the shaper makes of this reply. */
        AdmissionDecision toDecision() {
            return state.toDecision();
        }
    }

    private static String bucket(String admissionKey) {
        return new String(LimitScript.keyName(AdmissionAlgorithm.TOKEN_BUCKET, bytes(admissionKey)),
                StandardCharsets.UTF_8);
    }

    /** The replies of a call for {@code buckets} buckets, three values each: null for a key of the wrong type. */
    private static List<Result> parseAll(List<Object> reply, int buckets) {
        List<Integer> limits = new ArrayList<>();
        for (int i = 0; i < buckets; i++) {
            limits.add(1);
        }
        return LimitScript.parseAll(AdmissionAlgorithm.TOKEN_BUCKET, reply, limits).stream()
                .map(state -> state == null ? null : new Result(state.allowed(), state.left()[0],
                        state.waitMicros()[0], state))
                .toList();
    }

    /** A strict take of {@code cost} from the bucket of {@code rule}, through the shaper's client. */
    private static AdmissionDecision take(byte[] admissionKey, AdmissionRule rule, double cost) throws Exception {
        return redis.buckets().take(admissionKey, AdmissionPolicy.of(rule), cost).toDecision();
    }

    /** A batched charge of {@code consumed} to the bucket of {@code rule}. */
    private static RedisLimits.Charge charge(byte[] admissionKey, AdmissionRule rule, double consumed) {
        return new RedisLimits.Charge(admissionKey, AdmissionPolicy.of(rule), new double[] {consumed});
    }

    /** Each bucket's balance after a charge (NaN for a key of the wrong type). */
    private static List<Double> balances(List<SharedState> states) {
        return states.stream().map(state -> state == null ? Double.NaN : state.left()[0]).toList();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs the script directly, with the arguments as given (as another service would). */
    private static Result run(String admissionKey, Object rate, Object burst, Object cost,
                                                String mode) {
        List<Object> reply = redis.sync().eval(SOURCE, ScriptOutputType.MULTI,
                new String[] {bucket(admissionKey)}, String.valueOf(rate), String.valueOf(burst), String.valueOf(cost),
                mode);
        return parseAll(reply, 1).get(0);
    }

    /** The balance now (a charge of 0 refills and changes nothing else). */
    private static double balance(String admissionKey, double rate, double burst) {
        return run(admissionKey, rate, burst, 0, "charge").tokensLeft();
    }

    /**
     * Moves the last refill of the bucket of {@code admissionKey} back by {@code elapsed}, as if that much more of
     * Redis's time had passed since: Redis's clock cannot be advanced, and waiting for it would make tests sleep.
     */
    private static void shiftBucketTime(String admissionKey, Duration elapsed) {
        redis.sync().hincrby(bucket(admissionKey), "ts", -elapsed.toNanos() / 1000);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    @Test
    void aFreshBucketAllowsExactlyBurstUnitTakesThenRefuses() throws Exception {
        String key = newKey();
        AdmissionRule rule = new AdmissionRule(SLOW, 5);
        for (int i = 1; i <= 5; i++) {
            AdmissionDecision decision = take(bytes(key), rule, 1);
            assertThat(decision.allowed()).as("take %d", i).isTrue();
            assertThat(decision.tokensLeft()).isCloseTo(5 - i, within(0.01));
        }
        AdmissionDecision refused = take(bytes(key), rule, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.tokensLeft()).isCloseTo(0, within(0.01));
        // One token at 0.001/s: about 1000 s.
        assertThat(refused.retryAfterMs()).isBetween(990_000L, 1_000_000L);
    }

    @Test
    void aCostAboveOneTakesThatManyTokensOrNone() throws Exception {
        String key = newKey();
        AdmissionRule rule = new AdmissionRule(SLOW, 10);
        assertThat(take(bytes(key), rule, 4).tokensLeft()).isCloseTo(6, within(0.01));
        assertThat(take(bytes(key), rule, 4).tokensLeft()).isCloseTo(2, within(0.01));
        AdmissionDecision refused = take(bytes(key), rule, 4);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.tokensLeft()).as("a refusal takes nothing").isCloseTo(2, within(0.01));
        AdmissionDecision two = take(bytes(key), rule, 2);
        assertThat(two.allowed()).isTrue();
        assertThat(two.tokensLeft()).isCloseTo(0, within(0.01));
    }

    @Test
    void aRefusalReportsTheWaitUntilCostTokensExist() {
        String key = newKey();
        // rate 10/s, burst 3: empty the bucket, then ask for 3 tokens: 300 ms minus what refilled meanwhile.
        long before = System.nanoTime();
        assertThat(run(key, 10, 3, 3, "take").allowed()).isTrue();
        Result refused = run(key, 10, 3, 3, "take");
        long elapsedMicros = (System.nanoTime() - before) / 1000;

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()).isBetween(300_000 - elapsedMicros - 1, 300_000L);
        // Exactly the script's formula applied to the balance it reports.
        assertThat(refused.waitMicros()).isEqualTo((long) Math.ceil((3 - refused.tokensLeft()) * 1000000 / 10));
        AdmissionDecision decision = refused.toDecision();
        assertThat(decision.retryAfterMs()).isBetween(300 - elapsedMicros / 1000 - 1, 300L);
    }

    @Test
    void theBucketRefillsAtItsRateOverTheElapsedTime() throws Exception {
        String key = newKey();
        double rate = 50;
        long beforeTake = System.nanoTime();
        assertThat(run(key, rate, 100, 100, "take").tokensLeft()).isLessThan(0.5);
        long afterTake = System.nanoTime();

        // Read the balance until 10 tokens (200 ms) have come back, moving the bucket's last refill 20 ms into the
        // past before each read; every reading must match the time that passed between the take and the read
        // (those 20 ms steps and Redis's clock meanwhile), as far as this side can tell. 0.05 token = 1 ms of
        // slack for the difference between Redis's clock (TIME) and System.nanoTime.
        Duration step = Duration.ofMillis(20);
        long shifted = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int readings = 0;
        double tokens;
        do {
            shiftBucketTime(key, step);
            shifted += step.toNanos();
            long beforeRead = System.nanoTime();
            tokens = balance(key, rate, 100);
            long afterRead = System.nanoTime();
            readings++;
            assertThat(tokens).as("reading %d", readings).isBetween(
                    rate * seconds(shifted + beforeRead - afterTake) - 0.05,
                    rate * seconds(shifted + afterRead - beforeTake) + 0.05);
            assertThat(System.nanoTime()).as("10 tokens refilled in time").isLessThan(deadline);
        } while (tokens < 10);
        assertThat(readings).isGreaterThan(1);
        assertThat(run(key, rate, 100, 10, "take").allowed()).isTrue();
    }

    @Test
    void theRefillStopsAtTheBurst() throws Exception {
        String key = newKey();
        // rate 1000/s, burst 5: empty, then full again within 5 ms of refill (1 ms per read); never above 5.
        assertThat(run(key, 1000, 5, 5, "take").allowed()).isTrue();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        double tokens;
        do {
            shiftBucketTime(key, Duration.ofMillis(1));
            tokens = balance(key, 1000, 5);
            assertThat(tokens).isLessThanOrEqualTo(5);
            assertThat(System.nanoTime()).as("refilled in time").isLessThan(deadline);
        } while (tokens < 5);
        shiftBucketTime(key, Duration.ofMillis(20)); // 20 more tokens' worth of time
        assertThat(balance(key, 1000, 5)).isEqualTo(5);
    }

    @Test
    void capLowersTheBalanceToTheCostAndNeverRaisesIt() throws Exception {
        String key = newKey();
        // A fresh bucket is full (10): capped at 3. Rate 0.001/s: refill during the test is negligible.
        Result capped = run(key, 0.001, 10, 3, "cap");
        assertThat(capped.allowed()).isTrue();
        assertThat(capped.waitMicros()).isZero();
        assertThat(capped.tokensLeft()).isCloseTo(3, within(0.001));
        // A ceiling above the balance changes nothing, and the balance is what a take then finds.
        assertThat(run(key, 0.001, 10, 8, "cap").tokensLeft()).isCloseTo(3, within(0.001));
        assertThat(run(key, 0.001, 10, 1, "take").tokensLeft()).isCloseTo(2, within(0.001));
        assertThat(run(key, 0.001, 10, 0, "cap").tokensLeft()).isCloseTo(0, within(0.001));
    }

    @Test
    void chargeTakesWhateverTheBalanceAndMayGoNegative() throws Exception {
        String key = newKey();
        long before = System.nanoTime();
        Result charged = run(key, 1, 10, 25, "charge");
        assertThat(charged.allowed()).isTrue();
        assertThat(charged.waitMicros()).isZero();
        assertThat(charged.tokensLeft()).isCloseTo(-15, within(0.001)); // a fresh bucket: no refill yet

        Result refused = run(key, 1, 10, 1, "take");
        double elapsed = seconds(System.nanoTime() - before);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.tokensLeft()).isBetween(-15.0, -15 + elapsed);
        // The debt and one token: 16 s at 1 token/s.
        assertThat(refused.waitMicros()).isBetween((long) ((16 - elapsed) * 1e6) - 1, 16_000_000L);
        // The key lives twice the time to refill from -15 to the burst: 2 x 25 s.
        assertThat(redis.sync().pttl(bucket(key))).isBetween(48_000L, 50_000L);

        // Charges accumulate (what several instances report).
        assertThat(run(key, 1, 10, 5, "charge").tokensLeft()).isBetween(-20.0, -20 + seconds(System.nanoTime() - before));
    }

    @ParameterizedTest(name = "rate {0}, burst {1} -> {2} ms")
    @CsvSource({
            "10, 100, 20000", // 10 s to fill
            "0.001, 1, 2000000", // 1000 s to fill
            "1, 1, 2000",
            "1e6, 1, 1000", // 1 us to fill: the 1 s floor
            "1e9, 1, 1000",
            "1.7976931348623157E308, 1, 1000",
            "1e-6, 1e9, " + TEN_YEARS_MS, // 1e15 s to fill: the ten-year ceiling
            "1e-300, 1, " + TEN_YEARS_MS,
            "4.9E-324, 1, " + TEN_YEARS_MS, // the smallest double
            "1e-6, 1.7976931348623157E308, " + TEN_YEARS_MS,
            "1e306, 1e306, 2000", // 1 s to fill, but 2000 x burst overflows a double
    })
    void theKeyExpiresAfterAboutTwiceTheFillTimeAndNeverAtOnce(double rate, double burst, long expectedMs)
            throws Exception {
        String key = newKey();
        AdmissionDecision decision = take(bytes(key), new AdmissionRule(rate, burst), 1);
        assertThat(decision.allowed()).isTrue();
        long pttl = redis.sync().pttl(bucket(key));
        assertThat(pttl).as("PTTL").isPositive().isBetween(expectedMs - 1000, expectedMs);
    }

    @Test
    void theTtlIsRenewedOnlyOnceLessThanHalfOfItIsLeft() {
        // Given: a bucket filling in 100 s (TTL 200 s), whose key was written a moment ago
        String key = newKey();
        run(key, 1, 100, 1, "charge");
        // When: the TTL has run down to 150 s (more than half of 200 s left), and the bucket is charged again
        redis.sync().pexpire(bucket(key), 150_000);
        run(key, 1, 100, 1, "charge");
        // Then: the TTL was left alone
        assertThat(redis.sync().pttl(bucket(key))).isBetween(148_000L, 150_000L);
        // When: it has run down to 90 s (less than half)
        redis.sync().pexpire(bucket(key), 90_000);
        run(key, 1, 100, 1, "charge");
        // Then: renewed to twice the fill time
        assertThat(redis.sync().pttl(bucket(key))).isBetween(199_000L, 200_000L);
        // And a key that lost its TTL (PERSIST, a restore) gets one again at its next write
        redis.sync().persist(bucket(key));
        run(key, 1, 100, 1, "charge");
        assertThat(redis.sync().pttl(bucket(key))).isBetween(199_000L, 200_000L);
    }

    @Test
    void aDeeperDebtRenewsTheTtlAtOnce() {
        // Given: a bucket of 10 tokens at 1/s charged 25, 15 in debt: TTL 2 x 25 s
        String key = newKey();
        run(key, 1, 10, 25, "charge");
        assertThat(redis.sync().pttl(bucket(key))).isBetween(49_000L, 50_000L);
        // When: charged 100 more, 115 in debt: the bucket now needs 125 s to fill, more than twice what is left
        run(key, 1, 10, 100, "charge");
        // Then: the key is kept for twice that, or the debt could expire with it before it is paid back
        assertThat(redis.sync().pttl(bucket(key))).isBetween(249_000L, 250_000L);
    }

    @Test
    void bucketNamesCarryTheAdmissionKeyAsAClusterHashTag() throws Exception {
        byte[] admissionKey = bytes("tenant-42");
        byte[] name = LimitScript.keyName(AdmissionAlgorithm.TOKEN_BUCKET, admissionKey);
        assertThat(new String(name, StandardCharsets.UTF_8)).isEqualTo("shaper:tb:{tenant-42}");
        assertThat(SlotHash.getSlot(name)).isEqualTo(SlotHash.getSlot(admissionKey));

        // Keys are bytes: a binary admission key keeps its bytes inside the braces.
        byte[] binary = {(byte) 0xff, 0, 'x'};
        byte[] binaryName = LimitScript.keyName(AdmissionAlgorithm.TOKEN_BUCKET, binary);
        assertThat(binaryName).startsWith(bytes("shaper:tb:{")).endsWith((byte) 0xff, (byte) 0, (byte) 'x', (byte) '}');

        String key = newKey();
        take(bytes(key), new AdmissionRule(SLOW, 3), 1);
        assertThat(redis.sync().exists("shaper:tb:{" + key + "}")).isEqualTo(1);
        assertThat(redis.sync().hgetall("shaper:tb:{" + key + "}")).containsOnlyKeys("tokens", "ts");
        assertThat(redis.sync().type("shaper:tb:{" + key + "}")).isEqualTo("hash");
    }

    @ParameterizedTest(name = "rate {0}, burst {1}, cost {2}, mode {3}")
    @CsvSource(delimiter = '|', value = {
            "0     | 10  | 1  | take   | rate must be a number > 0, got 0",
            "-1    | 10  | 1  | take   | rate must be a number > 0, got -1",
            "abc   | 10  | 1  | take   | rate must be a number > 0, got abc",
            "inf   | 10  | 1  | take   | rate must be a number > 0, got inf",
            "nan   | 10  | 1  | take   | rate must be a number > 0, got nan",
            "''    | 10  | 1  | take   | rate must be a number > 0, got ",
            "10    | 0.5 | 1  | take   | burst must be a number >= 1, got 0.5",
            "10    | inf | 1  | take   | burst must be a number >= 1, got inf",
            "10    | x   | 1  | take   | burst must be a number >= 1, got x",
            "10    | 10  | -1 | take   | cost must be a number >= 0, got -1",
            "10    | 10  | 1e999 | take | cost must be a number >= 0, got 1e999",
            "10    | 10  | 1  | steal  | mode must be take, charge or cap, got steal",
            "10    | 10  | 1  | TAKE   | mode must be take, charge or cap, got TAKE",
    })
    void invalidArgumentsGiveAClearRedisError(String rate, String burst, String cost, String mode, String message) {
        String key = newKey();
        assertThatThrownBy(() -> run(key, rate, burst, cost, mode))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("ERR token-bucket: " + message);
        assertThat(redis.sync().exists(bucket(key))).as("nothing written").isZero();
    }

    @Test
    void aMissingArgumentGivesAClearRedisError() {
        String key = newKey();
        assertThatThrownBy(() -> redis.sync().eval(SOURCE, ScriptOutputType.MULTI,
                new String[] {bucket(key)}, "10", "10", "1"))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("ERR token-bucket: mode must be take, charge or cap, got nil");
    }

    @Test
    void takeReloadsTheScriptAfterScriptFlush() throws Exception {
        String key = newKey();
        AdmissionRule rule = new AdmissionRule(SLOW, 10);
        assertThat(take(bytes(key), rule, 1).tokensLeft()).isCloseTo(9, within(0.01));

        assertThat(redis.server().call("SCRIPT", "FLUSH")).isEqualTo("OK");
        assertThat(redis.sync().scriptExists(SHA)).containsExactly(false);

        AdmissionDecision afterFlush = take(bytes(key), rule, 1);
        assertThat(afterFlush.allowed()).isTrue();
        assertThat(afterFlush.tokensLeft()).as("taken once, not twice").isCloseTo(8, within(0.01));
        assertThat(redis.sync().scriptExists(SHA)).containsExactly(true);
    }

    @Test
    void aBucketStoredBeforeEveryPolicyTookOnePathReadsBackWithItsBalance() throws Exception {
        // Given: a key's one bucket as the single-bucket path stored it: a hash of tokens and ts (Redis's clock, us)
        String strict = newKey();
        String batched = newKey();
        List<String> time = redis.sync().time();
        String now = Long.toString(Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)));
        for (String key : List.of(strict, batched)) {
            redis.sync().hset(bucket(key), java.util.Map.of("tokens", "4", "ts", now));
        }
        AdmissionRule rule = new AdmissionRule(SLOW, 10);

        // When: a strict take and a batched charge, each of 1, under the same rule
        AdmissionDecision taken = take(bytes(strict), rule, 1);
        List<Double> charged = balances(redis.buckets().charge(List.of(charge(bytes(batched), rule, 1))).orThrow());

        // Then: each starts from the stored 4, not from a full bucket
        assertThat(taken.allowed()).isTrue();
        assertThat(taken.tokensLeft()).isCloseTo(3, within(0.01));
        assertThat(charged.get(0)).isCloseTo(3, within(0.01));
        assertThat(redis.sync().hgetall(bucket(strict))).containsOnlyKeys("tokens", "ts");
    }

    @Test
    void chargeReloadsTheScriptAfterScriptFlushAndChargesEachKeyOnce() throws Exception {
        String first = newKey();
        String second = newKey();
        String third = newKey();
        AdmissionRule rule = new AdmissionRule(SLOW, 100);
        assertThat(balances(redis.buckets().charge(List.of(charge(bytes(first), rule, 1))).orThrow()))
                .singleElement().satisfies(b -> assertThat(b).isCloseTo(99, within(0.01)));

        assertThat(redis.server().call("SCRIPT", "FLUSH")).isEqualTo("OK");

        List<Double> balances = balances(redis.buckets().charge(List.of(
                charge(bytes(first), rule, 5),
                charge(bytes(second), rule, 7),
                charge(bytes(third), rule, 150))).orThrow());
        assertThat(balances).hasSize(3);
        assertThat(balances.get(0)).isCloseTo(94, within(0.01));
        assertThat(balances.get(1)).isCloseTo(93, within(0.01));
        assertThat(balances.get(2)).isCloseTo(-50, within(0.01));
        // What Redis holds, read by another client: each key charged exactly once.
        assertThat(balance(first, SLOW, 100)).isCloseTo(94, within(0.01));
        assertThat(balance(second, SLOW, 100)).isCloseTo(93, within(0.01));
        assertThat(balance(third, SLOW, 100)).isCloseTo(-50, within(0.01));
        assertThat(redis.sync().scriptExists(SHA)).containsExactly(true);
    }

    @Test
    void oneCallChargesSeveralBucketsAndAnswersForEachInTurn() {
        String first = newKey();
        String second = newKey();
        List<Object> reply = redis.sync().eval(SOURCE, ScriptOutputType.MULTI,
                new String[] {bucket(first), bucket(second)}, String.valueOf(SLOW), "100", "5", "charge",
                String.valueOf(SLOW), "10", "3", "take");

        List<Result> results = parseAll(reply, 2);
        assertThat(results.get(0).allowed()).isTrue();
        assertThat(results.get(0).tokensLeft()).isCloseTo(95, within(0.01));
        assertThat(results.get(1).allowed()).isTrue();
        assertThat(results.get(1).tokensLeft()).isCloseTo(7, within(0.01));
        // Each bucket is the same hash a one-key call writes, with its own TTL.
        assertThat(balance(first, SLOW, 100)).isCloseTo(95, within(0.01));
        assertThat(balance(second, SLOW, 10)).isCloseTo(7, within(0.01));
        assertThat(redis.sync().pttl(bucket(second))).isPositive();
    }

    @Test
    void aKeyOfTheWrongTypeAmongSeveralSpoilsOnlyItsOwnAnswer() {
        String good = newKey();
        String bad = newKey();
        redis.sync().set(bucket(bad), "not a bucket");
        List<Object> reply = redis.sync().eval(SOURCE, ScriptOutputType.MULTI,
                new String[] {bucket(bad), bucket(good)}, String.valueOf(SLOW), "10", "1", "charge",
                String.valueOf(SLOW), "10", "4", "charge");

        List<Result> results = parseAll(reply, 2);
        assertThat(results.get(0)).isNull();
        assertThat(results.get(1).tokensLeft()).isCloseTo(6, within(0.01));
        assertThat(redis.sync().get(bucket(bad))).isEqualTo("not a bucket");
    }

    @Test
    void aBadArgumentOfAnyBucketFailsTheWholeCallWithoutEffect() {
        String first = newKey();
        String second = newKey();
        assertThatThrownBy(() -> redis.sync().eval(SOURCE, ScriptOutputType.MULTI,
                new String[] {bucket(first), bucket(second)}, "10", "10", "1", "charge", "10", "10", "-1", "charge"))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("ERR token-bucket: cost must be a number >= 0, got -1");
        assertThat(redis.sync().exists(bucket(first), bucket(second))).as("nothing written").isZero();
    }

    @Test
    void chargingManyKeysAtOnceChargesEachExactlyOnce() throws Exception {
        AdmissionRule rule = new AdmissionRule(SLOW, 100);
        List<RedisLimits.Charge> charges = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3 * RedisLimits.KEYS_PER_CALL + 5; i++) { // several script calls, one partial
            String key = newKey();
            keys.add(key);
            charges.add(charge(bytes(key), rule, 1 + i % 7));
        }
        List<Double> balances = balances(redis.buckets().charge(charges).orThrow());
        assertThat(balances).hasSize(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            assertThat(balances.get(i)).as(keys.get(i)).isCloseTo(100 - (1 + i % 7), within(0.01));
            assertThat(balance(keys.get(i), SLOW, 100)).as(keys.get(i)).isCloseTo(100 - (1 + i % 7), within(0.01));
        }
    }

    @Test
    void aUserAllowedOnlyTheScriptsCanStillChargeManyKeysAtOnce() throws Exception {
        // INFO (which tells a cluster node from a standalone server) is refused: the charges go by hash slot
        assertThat(redis.sync().aclSetuser("scripts-only", io.lettuce.core.AclSetuserArgs.Builder.on()
                .addPassword("pw").allKeys().addCommand(io.lettuce.core.protocol.CommandType.EVALSHA)
                .addCommand(io.lettuce.core.protocol.CommandType.EVAL)
                .addCommand(io.lettuce.core.protocol.CommandType.PING)
                // what the script itself calls
                .addCommand(io.lettuce.core.protocol.CommandType.TIME)
                .addCommand(io.lettuce.core.protocol.CommandType.HMGET)
                .addCommand(io.lettuce.core.protocol.CommandType.HSET)
                .addCommand(io.lettuce.core.protocol.CommandType.PTTL)
                .addCommand(io.lettuce.core.protocol.CommandType.PEXPIRE))).isEqualTo("OK");
        String uri = "redis://scripts-only:pw@" + redis.server().host() + ":" + redis.server().port();
        try (RedisLimits limited = new RedisLimits(uri, Duration.ofSeconds(2), Duration.ofMillis(100))) {
            AdmissionRule rule = new AdmissionRule(SLOW, 10);
            List<RedisLimits.Charge> charges = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                keys.add(newKey());
                charges.add(charge(bytes(keys.get(i)), rule, 3));
            }
            assertThat(balances(limited.charge(charges).orThrow())).hasSize(20)
                    .allSatisfy(b -> assertThat(b).isCloseTo(7, within(0.01)));
            for (String key : keys) {
                assertThat(balance(key, SLOW, 10)).isCloseTo(7, within(0.01));
            }
        }
    }

    @Test
    void timeHasMicrosecondResolution() {
        // 100 000 tokens/s is 0.1 token per microsecond. With millisecond time, every balance would be a
        // multiple of 100 tokens; with microseconds it is a multiple of 0.1 token.
        String key = newKey();
        double rate = 100_000;
        double burst = 100_000; // 1 s to fill: the readings below stay far from the cap
        long before = System.nanoTime();
        assertThat(run(key, rate, burst, burst, "take").allowed()).isTrue();
        List<Double> readings = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Result refused = run(key, rate, burst, burst, "take");
            double elapsedMicros = (System.nanoTime() - before) / 1000.0;
            assertThat(refused.allowed()).isFalse();
            double tokens = refused.tokensLeft();
            assertThat(tokens).isPositive().isLessThanOrEqualTo(0.1 * elapsedMicros + 0.1);
            assertThat(tokens * 10).as("whole microseconds of refill").isCloseTo(Math.rint(tokens * 10),
                    within(1e-6));
            assertThat(refused.waitMicros()).isEqualTo((long) Math.ceil((burst - tokens) * 1000000 / rate));
            readings.add(tokens);
        }
        assertThat(readings).as("consecutive calls refill fractions of a millisecond's worth")
                .isSorted()
                .anySatisfy(tokens -> assertThat(tokens % 100).isNotCloseTo(0, within(1e-6)));
    }

    @Test
    void theWaitIsCappedAtTenYearsInsteadOfOverflowing() throws Exception {
        // rate 1e-6/s, burst 1e9: an empty bucket needs 1e15 s for 1e9 tokens (1e21 us, more than a long holds).
        String key = newKey();
        AdmissionRule rule = new AdmissionRule(1e-6, 1e9);
        assertThat(take(bytes(key), rule, 1e9).allowed()).isTrue();
        AdmissionDecision refused = take(bytes(key), rule, 1e9);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMs()).as("retry after (ms)").isEqualTo(TEN_YEARS_MS);

        // At the smallest positive rate the wait is infinite: capped too.
        Result infinite = run(newKey(), Double.MIN_VALUE, 2, 3, "take");
        assertThat(infinite.allowed()).isFalse();
        assertThat(infinite.waitMicros()).isEqualTo(TEN_YEARS_MS * 1000);
    }
}
