package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.testsupport.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A batched sync whose round trip holds a call Redis refuses beside calls it runs, against a real redis-server: an
 * ACL user may run the token bucket's commands, not a fixed window's. What ran is charged once; what was refused
 * stays pending for a later sync; a sync refused again does not charge the token bucket a second time.
 */
class BatchedPartialRefusalIT {

    @Test
    void aRefusedCallLeavesItsChargesPendingAndTheCallsThatRanChargedOnce() throws Exception {
        // Given: a user without the window scripts' GET and INCRBY; one key of each algorithm admitted 5 units
        try (RedisServer server = RedisServer.builder().user("shaper", "Pa55", "resetkeys", "~shaper:*",
                "resetchannels", "-@all", "+ping", "+info", "+time", "+hmget", "+hset", "+pexpire", "+pttl",
                "+evalsha", "+eval").start();
             RedisLimits redis = new RedisLimits(server.uri(), Duration.ofSeconds(2), Duration.ofMillis(500))) {
            BatchedLimits batched = new BatchedLimits();
            AdmissionPolicy bucket = AdmissionPolicy.of(new AdmissionRule(0.001, 100));
            AdmissionPolicy window = AdmissionPolicy.of(AdmissionAlgorithm.FIXED_WINDOW, 100, 3_600_000);
            byte[] bucketKey = bytes("bucket-key");
            byte[] windowKey = bytes("window-key");
            long now = System.nanoTime();
            assertThat(batched.tryTake(bucketKey, bucket, 5, now, null).allowed()).isTrue();
            assertThat(batched.tryTake(windowKey, window, 5, now, null).allowed()).isTrue();

            // When: a sync, in one round trip for both keys
            assertThatThrownBy(() -> batched.sync(redis, now, Long.MAX_VALUE, System::nanoTime))
                    .isInstanceOf(RedisUnavailableException.class).hasMessageContaining("can't run this command");

            // Then: the token bucket is charged, the window's consumption is still pending
            assertThat(batched.pending(bucketKey)).isZero();
            assertThat(batched.pending(windowKey)).isEqualTo(5);
            assertThat(tokens(server, bucketKey)).isCloseTo(95, within(0.01));

            // And when: a later sync is refused again
            assertThatThrownBy(() -> batched.sync(redis, System.nanoTime(), Long.MAX_VALUE, System::nanoTime))
                    .isInstanceOf(RedisUnavailableException.class);

            // Then: the token bucket was not charged a second time; the window's units still wait
            assertThat(tokens(server, bucketKey)).isCloseTo(95, within(0.01));
            assertThat(batched.pending(windowKey)).isEqualTo(5);
        }
    }

    /** The token bucket's balance in Redis, read as the server's default user. */
    private static double tokens(RedisServer server, byte[] admissionKey) {
        String name = new String(LimitScript.keyName(AdmissionAlgorithm.TOKEN_BUCKET, admissionKey),
                StandardCharsets.UTF_8);
        return Double.parseDouble(server.call("HGET", name, "tokens"));
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
