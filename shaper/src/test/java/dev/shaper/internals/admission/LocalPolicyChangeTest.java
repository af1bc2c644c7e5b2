package dev.shaper.internals.admission;

import static dev.shaper.internals.admission.AdmissionAlgorithms.oneBucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A key's policy changed live between one token bucket and several limits, on local buckets (no Redis, or Redis
 * down): the balance of the bucket both have, the first, carries over instead of starting full.
 */
class LocalPolicyChangeTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    /** 10/s with a burst of 10: once drained, the next token comes in 100 ms. */
    private static final AdmissionPolicy TEN_PER_SECOND = oneBucket(10, 10);
    private static final AdmissionPolicy TEN_PER_SECOND_AND_1000_PER_HOUR = new AdmissionPolicy(
            AdmissionAlgorithm.TOKEN_BUCKET, List.of(new AdmissionLimit(10, 1_000, 10),
            new AdmissionLimit(1_000, 3_600_000, 1_000)));

    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private final AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT,
            Duration.ofMillis(100), Duration.ofSeconds(1), () -> 1, new ManualScheduler(), nanos::get);

    @Test
    void shouldKeepTheBalanceWhenOneBucketBecomesSeveralLimits() {
        // Given: the key's one bucket drained
        for (int i = 0; i < 10; i++) {
            assertThat(admission.admit(KEY, TEN_PER_SECOND, 1).allowed()).isTrue();
        }

        // When: its rule now lists a second limit
        AdmissionDecision next = admission.admit(KEY, TEN_PER_SECOND_AND_1000_PER_HOUR, 1, null);

        // Then: the first limit is as drained as the bucket was: no fresh burst
        assertThat(next.allowed()).isFalse();
        assertThat(next.retryAfterMs()).isBetween(1L, 100L);
    }

    @Test
    void shouldKeepTheFirstLimitsBalanceWhenSeveralLimitsBecomeOneBucket() {
        for (int i = 0; i < 10; i++) {
            assertThat(admission.admit(KEY, TEN_PER_SECOND_AND_1000_PER_HOUR, 1, null).allowed()).isTrue();
        }

        AdmissionDecision next = admission.admit(KEY, TEN_PER_SECOND, 1);

        assertThat(next.allowed()).isFalse();
        // And: it refills at the rule's rate from there
        nanos.addAndGet(100_000_000L);
        assertThat(admission.admit(KEY, TEN_PER_SECOND, 1).allowed()).isTrue();
        assertThat(admission.admit(KEY, TEN_PER_SECOND, 1).allowed()).isFalse();
    }

    @Test
    void shouldStartAKeyThatNeverHadAStateFull() {
        for (int i = 0; i < 10; i++) {
            assertThat(admission.admit(KEY, TEN_PER_SECOND_AND_1000_PER_HOUR, 1, null).allowed()).isTrue();
        }
        assertThat(admission.admit("other".getBytes(StandardCharsets.UTF_8), TEN_PER_SECOND, 1).allowed()).isTrue();
    }
}
