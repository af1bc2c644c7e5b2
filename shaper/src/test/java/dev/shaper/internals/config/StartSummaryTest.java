package dev.shaper.internals.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a start says it will do, in words: the topics with the input's partitions, the capacity, admission. */
class StartSummaryTest {

    private static ShaperConfig config(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(settings);
        all.put(ShaperConfig.INPUT_TOPIC_CONFIG, "requests");
        all.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "shaped");
        all.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "rejected");
        return new ShaperConfig(all);
    }

    @Test
    void shouldNameTheTopicsWithTheInputsPartitions() {
        assertThat(StartSummary.lines(config(Map.of()), 12, false).get(0))
                .isEqualTo("Topics: requests (12 partitions) -> shaped; rejected: rejected");
    }

    @Test
    void shouldSayHowTheCapacityIsHeld() {
        assertThat(StartSummary.capacity(config(Map.of()), 4)).startsWith("Capacity: none");
        assertThat(StartSummary.capacity(config(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "400",
                ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, "partition")), 4))
                .isEqualTo("Capacity: 400.0/s for the whole application, each partition 100.0/s (scope partition)");
        assertThat(StartSummary.capacity(config(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "400")), 4))
                .contains("static shares, 100.0/s each", "no Redis");
        assertThat(StartSummary.capacity(config(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "400",
                ShaperConfig.REDIS_URI_CONFIG, "redis://user:secret@redis:6379")), 4))
                .contains("through Redis").doesNotContain("secret");
    }

    @Test
    void shouldSayHowAdmissionCounts() {
        assertThat(StartSummary.admission(config(Map.of()), false)).startsWith("Admission: none");
        assertThat(StartSummary.admission(config(Map.of()), true)).contains("local buckets", "no shaper.redis.uri");
        assertThat(StartSummary.admission(config(Map.of(ShaperConfig.REDIS_URI_CONFIG, "redis://redis:6379")), true))
                .startsWith("Admission: batched").contains("shared in Redis");
    }
}
