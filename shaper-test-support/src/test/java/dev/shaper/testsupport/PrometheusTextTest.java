package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    private static final String SCRAPE = """
            # HELP jvm_memory_used_bytes The amount of used memory
            # TYPE jvm_memory_used_bytes gauge
            jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.5E7
            jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 2.5E7
            jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 4.0E7
            jvm_memory_used_bytes_other{area="heap"} 9.0E9
            shaper_queue_records 12.0
            """;

    @Test
    void shouldSumTheSamplesWhoseLabelsMatch() {
        assertThat(PrometheusText.sum(SCRAPE, "jvm_memory_used_bytes", Map.of("area", "heap"))).isEqualTo(4.0E7);
        assertThat(PrometheusText.sum(SCRAPE, "jvm_memory_used_bytes", Map.of())).isEqualTo(8.0E7);
        assertThat(PrometheusText.sum(SCRAPE, "shaper_queue_records", Map.of())).isEqualTo(12.0);
    }

    @Test
    void shouldFailWhenNoSampleMatches() {
        assertThatThrownBy(() -> PrometheusText.sum(SCRAPE, "jvm_memory_used_bytes", Map.of("area", "offheap")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("no sample jvm_memory_used_bytes");
    }
}
