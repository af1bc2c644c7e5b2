package dev.shaper.internals.admission;

import static dev.shaper.internals.admission.AdmissionAlgorithms.oneBucket;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LocalLimitsSeedingTest {

    private static final AdmissionPolicy SHARED = oneBucket(10, 100);
    private static final AdmissionPolicy SHARE = SHARED.share(2, 1);

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.UTF_8);
    }

    /** Redis's word on a key: {@code left} tokens in its one bucket. */
    private static SharedState known(double left) {
        return new SharedState(AdmissionAlgorithm.TOKEN_BUCKET, true, new double[] {left}, new long[1],
                new double[1][0]);
    }

    @Test
    void seedingRemembersOnlyKeysBelowAFullBucketAndNoMoreThanItsBound() {
        LocalLimits limits = new LocalLimits();

        limits.seed(key("full"), SHARED, SHARE, known(100), 2, 0);
        limits.seed(key("spent"), SHARED, SHARE, known(40), 2, 0);

        assertThat(limits.size()).isEqualTo(1);
        assertThat(limits.tryTake(key("spent"), SHARED, SHARE, 21, 0).allowed()).isFalse();
        for (int i = 0; i < LocalLimits.MAX_SEEDED_KEYS + 10; i++) {
            limits.seed(key("k" + i), SHARED, SHARE, known(2), 2, 0);
        }
        assertThat(limits.size()).isEqualTo(LocalLimits.MAX_SEEDED_KEYS);
        // A key it holds is still updated.
        limits.seed(key("spent"), SHARED, SHARE, known(60), 2, 0);
        assertThat(limits.tryTake(key("spent"), SHARED, SHARE, 30, 0).allowed()).isTrue();
    }
}
