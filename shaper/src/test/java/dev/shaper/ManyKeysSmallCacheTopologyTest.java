package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * More keys queued than the instance keeps key states of in memory ({@code shaper.state.cache.max.keys}): every key
 * still releases at its rate, and never more than rate + 1 records in a second, also when the release stalls and
 * makes up time (the keys' windows of releases, which the store does not keep, stay in memory while they matter).
 */
class ManyKeysSmallCacheTopologyTest {

    private static final int KEYS = 40;
    private static final int PER_KEY = 30;
    private static final int RATE = 10;
    private static final long TICK_MS = 50;

    @Test
    void shouldReleaseEveryKeyAtItsRateWhenTheKeysOutnumberTheStatesKeptInMemory() {
        Map<String, String> settings = new HashMap<>();
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, Integer.toString(RATE));
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(TICK_MS));
        settings.put(ShaperConfig.STATE_CACHE_MAX_KEYS_CONFIG, "8");
        try (ShaperDriver shaper = ShaperDriver.start(settings)) {
            for (int round = 0; round < PER_KEY; round++) {
                for (int k = 0; k < KEYS; k++) {
                    shaper.send("key-" + k, "r" + round);
                }
            }
            // Per key, the driver's time (ms since the start) of each release
            Map<String, List<Long>> released = new HashMap<>();
            long t = 0;
            for (; t <= 5_000; t += TICK_MS) {
                for (TestRecord<byte[], byte[]> r : shaper.readShaped()) {
                    released.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                            .add(t);
                }
                if (t == 1_500) {
                    shaper.stall(Duration.ofMillis(400)); // a late tick: the keys make up the time they lost
                    t += 400;
                } else {
                    shaper.advance(Duration.ofMillis(TICK_MS));
                }
            }

            // 5 s at 10/s per key: each key's first record at once, the other 29 within 3 s and the stall
            assertThat(released).hasSize(KEYS).allSatisfy((key, times) -> {
                assertThat(times).as(key).hasSize(PER_KEY);
                for (int i = 0; i < times.size(); i++) {
                    long from = times.get(i);
                    long inOneSecond = times.stream().filter(x -> x >= from && x < from + 1_000).count();
                    assertThat(inOneSecond).as("%s's releases in the second from %d ms", key, from)
                            .isLessThanOrEqualTo(ReleasePace.maxInOneSecond(RATE));
                }
            });
        }
    }
}
