package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScrapeOrderTest {

    @Test
    void shouldListTheRecordCountersFirstAndTheHistogramsAfterTheShapersOtherMetrics() {
        String scrape = String.join("\n",
                "# HELP jvm_threads_live_threads live", "# TYPE jvm_threads_live_threads gauge",
                "jvm_threads_live_threads 12.0",
                "# HELP shaper_capacity_given given", "# TYPE shaper_capacity_given gauge", "shaper_capacity_given 1.0",
                "# HELP shaper_queue_delay_seconds waited", "# TYPE shaper_queue_delay_seconds histogram",
                "shaper_queue_delay_seconds_bucket{le=\"0.01\"} 1", "shaper_queue_delay_seconds_count 1",
                "# HELP shaper_queue_delay_seconds_max most", "# TYPE shaper_queue_delay_seconds_max gauge",
                "shaper_queue_delay_seconds_max 0.005",
                "# HELP shaper_queue_records queued", "# TYPE shaper_queue_records gauge", "shaper_queue_records 3.0",
                "# HELP shaper_records_cut_total cut", "# TYPE shaper_records_cut_total counter",
                "shaper_records_cut_total 0.0",
                "# HELP shaper_records_released_total released", "# TYPE shaper_records_released_total counter",
                "shaper_records_released_total 7.0", "");

        List<String> families = ScrapeOrder.reorder(scrape).lines().filter(l -> l.startsWith("# HELP "))
                .map(l -> l.split(" ")[2]).toList();

        assertThat(families).containsExactly("shaper_records_released_total", "shaper_records_cut_total",
                "shaper_queue_records", "shaper_capacity_given", "shaper_queue_delay_seconds",
                "shaper_queue_delay_seconds_max", "jvm_threads_live_threads");
        assertThat(ScrapeOrder.reorder(scrape).lines().sorted().toList())
                .as("every line kept").isEqualTo(scrape.lines().filter(l -> !l.isEmpty()).sorted().toList());
    }

    @Test
    void shouldShowTheRecordCountersWithinTheFirstFortyLinesOfTheShapersMetrics() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ShaperMetrics metrics = new ShaperMetrics(registry, System::currentTimeMillis);
        metrics.bindJvmAndProcess();

        List<String> first = ScrapeOrder.reorder(registry.scrape()).lines().filter(l -> l.contains("shaper_"))
                .limit(40).toList();

        assertThat(first).anyMatch(l -> l.startsWith("shaper_records_released_total"))
                .anyMatch(l -> l.startsWith("shaper_records_rejected_total{"));
        assertThat(registry.scrape().lines().filter(l -> l.startsWith("shaper_queue_delay_seconds_bucket{")
                && l.contains("mode=\"enforce\""))).as("the queue delay's buckets: ten and +Inf").hasSize(11);
    }
}
