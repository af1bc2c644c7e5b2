package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.capacity.CapacityCoordinator;
import dev.shaper.internals.capacity.CapacityLeases;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.PriorityDemand;
import dev.shaper.internals.capacity.adaptive.AdaptiveCapacity;
import dev.shaper.internals.capacity.adaptive.AdaptiveSettings;
import dev.shaper.internals.capacity.adaptive.CapacityBounds;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.capacity.adaptive.ControllerKind;
import dev.shaper.internals.capacity.adaptive.FeedbackListener;
import dev.shaper.testsupport.ManualScheduler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard in {@code shaper/ops/grafana} queries only metrics the shaper publishes, under the
 * names Prometheus gives them: a renamed meter must not leave a panel silently empty. Every meter is described.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("ops", "grafana", "shaper-dashboard.json");
    private static final Pattern SHAPER_METRIC = Pattern.compile("\\bshaper_[a-z0-9_]+");

    @Test
    void shouldQueryOnlyMetricsTheShaperPublishes() throws Exception {
        // Given: every meter registered, as in a running instance with admission on Redis
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ShaperMetrics metrics = new ShaperMetrics(registry, System::currentTimeMillis);
        try (AdmissionController admission = new AdmissionController(null, AdmissionMode.BATCHED,
                Duration.ofMillis(100), Duration.ofSeconds(1), () -> 1, new ManualScheduler(), System::nanoTime)) {
            metrics.bindAdmission(admission);
            CapacityPool pool = new CapacityPool(400, 8);
            metrics.bindCapacity(pool);
            metrics.bindCapacityCoordinator(new CapacityCoordinator(pool, new CapacityLeases() {
                @Override
                public Lease renew(PriorityDemand demand, Collection<Integer> partitions) {
                    return new Lease(400, 400, 1, demand.total());
                }

                @Override
                public String description() {
                    return "redis://test:6379";
                }

                @Override
                public void close() {
                }
            }, Duration.ofSeconds(1), new ManualScheduler(), System::nanoTime));
            AdaptiveCapacity adaptive = AdaptiveCapacity.start(new AdaptiveSettings(new CapacityBounds(40, 400), 100,
                    0.01, 1_000, 5_000, 30_000, ControllerKind.AIMD), System.currentTimeMillis(), false);
            metrics.bindClosedLoop(new ClosedLoop(adaptive, null, capacity -> { }, new ManualScheduler(),
                    System::currentTimeMillis, "test"), new FeedbackListener(Map.of("bootstrap.servers", "unused:9092"),
                    "feedback", Duration.ofSeconds(5), (writer, report) -> { }, System::currentTimeMillis));
            metrics.redisCall("take", 1_000);
            metrics.registerTaskCounts(1, 100).released(System.currentTimeMillis(), 5, 100);
            String scrape = registry.scrape();

            // When: the dashboard's queries are read
            JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
            List<String> expressions = new ArrayList<>();
            dashboard.findValues("expr").forEach(e -> expressions.add(e.asText()));
            expressions.add(dashboard.at("/templating/list/1/query").asText());

            // Then: every meter has a description
            assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getDescription())
                    .as("description of %s", meter.getId().getName()).isNotBlank());
            // And: each shaper_* name in them is a sample name of the scrape
            assertThat(expressions).hasSizeGreaterThan(10);
            for (String expression : expressions) {
                Matcher m = SHAPER_METRIC.matcher(expression);
                while (m.find()) {
                    assertThat(scrape).as("metric %s in query %s", m.group(), expression)
                            .containsPattern("(?m)^" + m.group() + "[ {]");
                }
            }
        }
    }
}
