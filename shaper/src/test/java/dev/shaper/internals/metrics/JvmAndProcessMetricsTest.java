package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.PrometheusText;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JVM's and the process's meters in the scrape {@code /metrics} answers, under the names dashboards and alerts
 * built on Micrometer expect; a collection shows as a pause (or, for a concurrent collector, a cycle).
 */
class JvmAndProcessMetricsTest {

    @Test
    void theScrapeHoldsTheJvmsMemoryCollectionsThreadsAndTheProcesssCpuUptimeAndFiles() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ShaperMetrics metrics = new ShaperMetrics(registry, System::currentTimeMillis)) {
            metrics.bindJvmAndProcess();

            // When: the JVM collects
            System.gc();

            // Then: the collection is published (JvmGcMetrics hears of it from the collector's notification, on a
            // thread of the JVM's own)
            String pauseOrCycle = stopTheWorldCollector() ? "jvm_gc_pause_seconds_count"
                    : "jvm_gc_concurrent_phase_time_seconds_count";
            Await.until(pauseOrCycle + " in the scrape", Duration.ofSeconds(10),
                    () -> registry.scrape().contains(pauseOrCycle));
            String scrape = registry.scrape();
            assertThat(PrometheusText.sum(scrape, "jvm_memory_used_bytes", Map.of("area", "heap"))).isPositive();
            assertThat(scrape).contains("jvm_memory_max_bytes", "jvm_buffer_memory_used_bytes",
                    "jvm_gc_memory_allocated_bytes_total", "jvm_gc_overhead", "jvm_threads_live_threads",
                    "jvm_classes_loaded_classes", "jvm_info{", "process_cpu_usage", "system_cpu_count",
                    "process_uptime_seconds", "process_start_time_seconds", "process_files_open_files",
                    "process_files_max_files");
            assertThat(PrometheusText.value(scrape, "process_uptime_seconds")).isPositive();
            assertThat(PrometheusText.value(scrape, "process_files_open_files")).isPositive();
            assertThat(PrometheusText.value(scrape, "jvm_threads_live_threads")).isPositive();
        }
    }

    /** Whether this JVM's collector stops the world for its collections (G1, Parallel, Serial) or not (ZGC). */
    private static boolean stopTheWorldCollector() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                .noneMatch(name -> name.startsWith("ZGC") || name.startsWith("Shenandoah"));
    }
}
