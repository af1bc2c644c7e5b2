package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** GCRA in process: one arrival time per limit, on a clock the tests advance. */
class GcraAlgorithmTest {

    private static final long MS = 1_000_000L;
    private static final long T0 = 1_000_000_000_000L;

    private static AdmissionPolicy gcra(AdmissionLimit... limits) {
        return new AdmissionPolicy(AdmissionAlgorithm.GCRA, List.of(limits));
    }

    @Test
    void shouldRefuseALimitFasterThanWholeMicrosecondsCountExactly() {
        assertThat(gcra(new AdmissionLimit(20_000, 1000, 100)).size()).isOne();
        assertThatThrownBy(() -> gcra(new AdmissionLimit(30_000, 1000, 100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("30000.0 units per second").hasMessageContaining("use token-bucket");
    }

    @Test
    void shouldAdmitTheBurstAtOnceAndThenOneUnitPerEmissionInterval() {
        // Given: 10 per second, a burst of 5: an emission interval of 100 ms
        AdmissionPolicy policy = gcra(new AdmissionLimit(10, 1000, 5));
        LimitStates states = new LimitStates(policy, T0);

        // When: 6 records at once
        for (int i = 0; i < 5; i++) {
            assertThat(states.tryTake(policy, 1, T0).allowed()).as("record %d", i).isTrue();
        }
        AdmissionDecision sixth = states.tryTake(policy, 1, T0);

        // Then: the sixth waits one interval; after it, one more fits and no second one
        assertThat(sixth.allowed()).isFalse();
        assertThat(sixth.retryAfterMs()).isEqualTo(100);
        assertThat(sixth.tokensLeft()).isCloseTo(0, within(1e-9));
        assertThat(states.tryTake(policy, 1, T0 + 100 * MS).allowed()).isTrue();
        assertThat(states.tryTake(policy, 1, T0 + 100 * MS).allowed()).isFalse();
    }

    @Test
    void shouldDecideAsATokenBucketOfTheSameRateAndBurst() {
        // Given: the same limits, as GCRA and as a token bucket, offered the same random records of cost 1 to 3
        List<AdmissionLimit> limits = List.of(new AdmissionLimit(50, 1000, 20), new AdmissionLimit(600, 60_000, 100));
        AdmissionPolicy gcra = new AdmissionPolicy(AdmissionAlgorithm.GCRA, limits);
        AdmissionPolicy bucket = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, limits);
        LimitStates meter = new LimitStates(gcra, T0);
        LimitStates tokens = new LimitStates(bucket, T0);
        Random random = new Random(7);
        long now = T0;
        int allowed = 0;
        for (int i = 0; i < 20_000; i++) {
            now += (long) (-Math.log(1 - random.nextDouble()) / 80 * 1e9);
            int cost = 1 + random.nextInt(3);

            AdmissionDecision byMeter = meter.tryTake(gcra, cost, now);
            AdmissionDecision byBucket = tokens.tryTake(bucket, cost, now);

            // Then: the same decision, the same limit refusing, the same wait to the millisecond
            assertThat(byMeter.allowed()).as("record %d", i).isEqualTo(byBucket.allowed());
            assertThat(byMeter.limit()).as("record %d", i).isEqualTo(byBucket.limit());
            assertThat(byMeter.retryAfterMs()).as("record %d", i).isCloseTo(byBucket.retryAfterMs(), within(1L));
            assertThat(byMeter.tokensLeft()).as("record %d", i).isCloseTo(byBucket.tokensLeft(), within(1e-6));
            allowed += byMeter.allowed() ? 1 : 0;
        }
        assertThat(allowed).as("both limits bound some of the time").isBetween(1000, 19_000);
    }

    @Test
    void shouldCarryAChargePastTheBurstAsADebtPaidBackAtTheRate() {
        AdmissionPolicy policy = gcra(new AdmissionLimit(10, 1000, 5));
        LimitStates states = new LimitStates(policy, T0);

        // A batched sync reports 15 admitted elsewhere: 10 more than the burst
        states.take(policy, 15, T0);

        assertThat(states.left(policy, T0)[0]).isCloseTo(-10, within(1e-9));
        AdmissionDecision refused = states.tryTake(policy, 1, T0);
        assertThat(refused.retryAfterMs()).as("11 units at 10 per second").isEqualTo(1100);
        assertThat(states.tryTake(policy, 1, T0 + 1100 * MS).allowed()).isTrue();
    }

    @Test
    void shouldTakeInASharedStateAsWhatItHasLeftLessWhatWasAdmittedHere() {
        AdmissionPolicy policy = gcra(new AdmissionLimit(10, 1000, 20));
        LimitStates states = new LimitStates(policy, T0);
        SharedState shared = new SharedState(AdmissionAlgorithm.GCRA, true, new double[] {12}, new long[1],
                new double[1][0]);

        // Redis says 12 are left; 2 were admitted here since the charge left
        states.adopt(policy, shared, 1, 2, T0);

        assertThat(states.left(policy, T0)[0]).isCloseTo(10, within(1e-9));
        // And a local share: a third of Redis's 12
        states.adopt(policy, shared, 3, 0, T0);
        assertThat(states.left(policy, T0)[0]).isCloseTo(4, within(1e-9));
    }

    @Test
    void shouldBeUnusedOnceItsArrivalTimeHasPassed() {
        AdmissionPolicy policy = gcra(new AdmissionLimit(10, 1000, 5));
        LimitStates states = new LimitStates(policy, T0);
        assertThat(states.isUnused(policy, T0)).isTrue();

        states.tryTake(policy, 3, T0);

        assertThat(states.isUnused(policy, T0 + 299 * MS)).isFalse();
        assertThat(states.isUnused(policy, T0 + 300 * MS)).isTrue();
    }
}
