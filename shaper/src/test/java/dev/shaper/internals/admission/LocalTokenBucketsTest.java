package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LocalTokenBucketsTest {

    private static final AdmissionRule SHARED = new AdmissionRule(10, 100);
    private static final AdmissionRule SHARE = new AdmissionRule(5, 50);

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void seedingRemembersOnlyKeysBelowAFullBucketAndNoMoreThanItsBound() {
        LocalTokenBuckets buckets = new LocalTokenBuckets();

        buckets.seed(key("full"), SHARED, SHARE, 50, 0);
        buckets.seed(key("spent"), SHARED, SHARE, 20, 0);

        assertThat(buckets.size()).isEqualTo(1);
        assertThat(buckets.tryTake(key("spent"), SHARED, SHARE, 21, 0).allowed()).isFalse();
        for (int i = 0; i < LocalTokenBuckets.MAX_SEEDED_KEYS + 10; i++) {
            buckets.seed(key("k" + i), SHARED, SHARE, 1, 0);
        }
        assertThat(buckets.size()).isEqualTo(LocalTokenBuckets.MAX_SEEDED_KEYS);
        // A key it holds is still updated.
        buckets.seed(key("spent"), SHARED, SHARE, 30, 0);
        assertThat(buckets.tryTake(key("spent"), SHARED, SHARE, 30, 0).allowed()).isTrue();
    }
}
