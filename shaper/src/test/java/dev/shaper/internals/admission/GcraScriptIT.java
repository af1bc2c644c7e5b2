package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GCRA script against a real redis-server (its own, on a free port). Redis's clock cannot be controlled, so the
 * rates are so low that what time gives back during a test is negligible (0.001 unit/s), or figures are bounded by
 * the time measured around the calls.
 */
class GcraScriptIT {

    private static final Logger LOG = LoggerFactory.getLogger(GcraScriptIT.class);
    private static final double SLOW = 0.001;

    @RegisterExtension
    static final ScriptTestRedis redis = new ScriptTestRedis();
    private static final AtomicInteger KEYS = new AtomicInteger();

    private static String newKey() {
        return "gcra-test-" + KEYS.incrementAndGet();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String name(AdmissionAlgorithm algorithm, String admissionKey) {
        return new String(LimitScript.keyName(algorithm, bytes(admissionKey)), StandardCharsets.UTF_8);
    }

    private static AdmissionPolicy gcra(AdmissionLimit... limits) {
        return new AdmissionPolicy(AdmissionAlgorithm.GCRA, List.of(limits));
    }

    private static SharedState take(String key, AdmissionPolicy policy, double cost) throws Exception {
        return redis.buckets().take(bytes(key), policy, cost);
    }

    /** Runs the script directly with one key and its four arguments, as another service would. */
    private static List<Object> run(String admissionKey, String rate, String burst, String cost, String mode) {
        return redis.sync().eval(AdmissionAlgorithm.GCRA.script().source(), ScriptOutputType.MULTI,
                new String[] {name(AdmissionAlgorithm.GCRA, admissionKey)}, rate, burst, cost, mode);
    }

    @Test
    void aFreshKeyAdmitsItsBurstThenWaitsOneEmissionIntervalPerUnit() throws Exception {
        String key = newKey();
        // 10 per second, a burst of 3: an emission interval of 100 ms
        AdmissionPolicy policy = gcra(new AdmissionLimit(10, 1000, 3));
        long before = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            assertThat(take(key, policy, 1).allowed()).as("record %d", i).isTrue();
        }
        SharedState refused = take(key, policy, 1);
        long elapsedMicros = (System.nanoTime() - before) / 1000;

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.waitMicros()[0]).isBetween(100_000 - elapsedMicros - 1, 100_000L);
        // The arrival time is one string, in microseconds of Redis's clock, that expires when it passes
        String tat = redis.sync().get(name(AdmissionAlgorithm.GCRA, key));
        assertThat(Long.parseLong(tat)).isPositive();
        assertThat(redis.sync().pttl(name(AdmissionAlgorithm.GCRA, key))).isBetween(1L, 300L);
        assertThat(redis.sync().type(name(AdmissionAlgorithm.GCRA, key))).isEqualTo("string");
    }

    @Test
    void aKeyOfSeveralLimitsIsTakenFromAllOrNoneAndEachLimitHasItsOwnArrivalTime() throws Exception {
        String key = newKey();
        AdmissionPolicy policy = gcra(new AdmissionLimit(SLOW, 1000, 5), new AdmissionLimit(SLOW, 1000, 2));
        assertThat(take(key, policy, 2).left()).containsExactly(new double[] {3, 0}, within(0.01));

        SharedState refused = take(key, policy, 1);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.left()[0]).as("the first limit keeps its 3").isCloseTo(3, within(0.01));
        assertThat(refused.waitMicros()[0]).isZero();
        assertThat(refused.waitMicros()[1]).as("1 unit at 0.001/s").isBetween(999_000_000L, 1_000_000_000L);
        assertThat(refused.toDecision().limit()).isEqualTo(1);
        assertThat(redis.sync().keys("shaper:gcra:{" + key + "}*")).containsExactlyInAnyOrder(
                "shaper:gcra:{" + key + "}", "shaper:gcra:{" + key + "}:2");
    }

    @Test
    void aChargePastTheBurstIsADebtAndACapNeverGivesBack() throws Exception {
        String key = newKey();
        AdmissionPolicy policy = gcra(new AdmissionLimit(SLOW, 1000, 10));
        List<SharedState> charged = redis.buckets().charge(List.of(new RedisLimits.Charge(bytes(key), policy,
                new double[] {25}))).orThrow();
        assertThat(charged.get(0).left()[0]).isCloseTo(-15, within(0.01));

        List<SharedState> raised = redis.buckets().cap(List.of(new RedisLimits.Charge(bytes(key), policy,
                new double[] {5})));
        assertThat(raised.get(0).left()[0]).as("never raised").isCloseTo(-15, within(0.01));

        String other = newKey();
        take(other, policy, 1);
        List<SharedState> capped = redis.buckets().cap(List.of(new RedisLimits.Charge(bytes(other), policy,
                new double[] {4})));
        assertThat(capped.get(0).left()[0]).as("lowered to the ceiling").isCloseTo(4, within(0.01));
    }

    @Test
    void aKeyOfTheWrongTypeAmongSeveralSpoilsOnlyItsOwnAnswer() throws Exception {
        String good = newKey();
        String bad = newKey();
        redis.sync().hset(name(AdmissionAlgorithm.GCRA, bad), "tokens", "3");
        AdmissionPolicy policy = gcra(new AdmissionLimit(SLOW, 1000, 10));

        List<SharedState> states = redis.buckets().charge(List.of(
                new RedisLimits.Charge(bytes(bad), policy, new double[] {1}),
                new RedisLimits.Charge(bytes(good), policy, new double[] {4}))).orThrow();

        assertThat(states.get(0)).isNull();
        assertThat(states.get(1).left()[0]).isCloseTo(6, within(0.01));
        assertThatThrownBy(() -> take(bad, policy, 1)).isInstanceOf(BucketUnusableException.class);
        String odd = newKey();
        redis.sync().set(name(AdmissionAlgorithm.GCRA, odd), "1.5");
        assertThatThrownBy(() -> take(odd, policy, 1)).isInstanceOf(BucketUnusableException.class)
                .hasMessageContaining("not a GCRA arrival time");
    }

    @ParameterizedTest(name = "rate {0}, burst {1}, cost {2}, mode {3}")
    @CsvSource(delimiter = '|', value = {
            "0     | 10    | 1     | take   | rate must be a number > 0, got 0",
            "x     | 10    | 1     | take   | rate must be a number > 0, got x",
            "10    | 0.5   | 1     | take   | burst must be a number >= 1, got 0.5",
            "10    | 10    | -1    | take   | cost must be a number >= 0, got -1",
            "10,5  | 10    | 1     | take   | rate and burst must list as many limits, got 2 and 1",
            "10,5  | 10,10 | 1,2,3 | cap    | cost must be one number or one per limit",
            "10    | 10    | 1     | steal  | mode must be take, charge or cap, got steal",
    })
    void invalidArgumentsGiveAClearRedisErrorAndChangeNothing(String rate, String burst, String cost, String mode,
                                                              String message) {
        String key = newKey();
        assertThatThrownBy(() -> run(key, rate, burst, cost, mode))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("ERR gcra: " + message);
        assertThat(redis.sync().keys("shaper:*{" + key + "}*")).as("nothing written").isEmpty();
    }

    @Test
    void theScriptAgreesWithTheTokenBucketScriptOnTheSameTakes() throws Exception {
        String key = newKey();
        List<AdmissionLimit> limits = List.of(new AdmissionLimit(SLOW, 1000, 7), new AdmissionLimit(SLOW, 1000, 4));
        AdmissionPolicy meter = new AdmissionPolicy(AdmissionAlgorithm.GCRA, limits);
        AdmissionPolicy bucket = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, limits);
        for (int cost : new int[] {1, 2, 3, 1, 1, 2}) {
            SharedState byMeter = take(key, meter, cost);
            SharedState byBucket = take(key, bucket, cost);
            assertThat(byMeter.allowed()).as("cost %d", cost).isEqualTo(byBucket.allowed());
            assertThat(byMeter.left()).as("cost %d", cost).containsExactly(byBucket.left(), within(0.01));
        }
    }

    /**
     * Redis's memory per admission key, one limit of each algorithm: {@code MEMORY USAGE} of one key (Redis's
     * estimate of its bytes, with its name and TTL), and as decision 0006 measured it, {@code used_memory} before and
     * after 10,000 admission keys of 17 bytes charged once (so with the keyspace's own overhead per key). Each
     * algorithm on an emptied server, so that no algorithm pays for the keyspace's growth past another's keys; limits
     * per hour and per day, so that no key expires before it is counted. Logged for the decision record.
     */
    @Test
    void oneArrivalTimeTakesLessRedisMemoryThanATokenBucketsHash() throws Exception {
        List<AdmissionAlgorithm> algorithms = AdmissionAlgorithm.all();
        long[] usage = new long[algorithms.size()];
        for (int limits = 1; limits <= 2; limits++) {
            for (int a = 0; a < algorithms.size(); a++) {
                AdmissionAlgorithm algorithm = algorithms.get(a);
                AdmissionPolicy policy = new AdmissionPolicy(algorithm, List.of(
                        new AdmissionLimit(100, 3_600_000, 100),
                        new AdmissionLimit(1000, 86_400_000, 1000)).subList(0, limits));
                redis.sync().flushall();
                String one = String.format(Locale.ROOT, "memkey-%d-%08d", a, 0);
                redis.buckets().charge(List.of(new RedisLimits.Charge(bytes(one), policy, new double[] {100})))
                        .orThrow();
                usage[a] = 0;
                for (String name : redis.sync().keys(algorithm.keyPrefix() + "{" + one + "}*")) {
                    usage[a] += redis.sync().memoryUsage(name);
                }
                long before = usedMemory();
                for (int from = 1; from <= 10_000; from += RedisLimits.CHARGE_CHUNK) {
                    List<RedisLimits.Charge> charges = new java.util.ArrayList<>();
                    for (int i = from; i < Math.min(10_001, from + RedisLimits.CHARGE_CHUNK); i++) {
                        String key = String.format(Locale.ROOT, "memkey-%d-%08d", a, i);
                        charges.add(new RedisLimits.Charge(bytes(key), policy, new double[] {100}));
                    }
                    redis.buckets().charge(charges).orThrow();
                }
                LOG.info(String.format(Locale.ROOT, "%-14s %d limit(s): MEMORY USAGE %d bytes, used_memory %d bytes"
                        + " per key", algorithm, limits, usage[a], (usedMemory() - before) / 10_000));
            }
            if (limits == 1) {
                // One limit: a string holding an integer is smaller than a hash of two fields
                assertThat(usage[algorithms.indexOf(AdmissionAlgorithm.GCRA)]).isPositive()
                        .isLessThan(usage[algorithms.indexOf(AdmissionAlgorithm.TOKEN_BUCKET)]);
            }
        }
    }

    private static long usedMemory() {
        for (String line : redis.sync().info("memory").split("\\R")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory");
    }
}
