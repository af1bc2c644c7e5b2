package dev.shaper.internals.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        try (AllMeters meters = new AllMeters()) {
            String scrape = meters.scrape();

            // When: the dashboard's queries are read
            JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
            List<String> expressions = new ArrayList<>();
            dashboard.findValues("expr").forEach(e -> expressions.add(e.asText()));
            expressions.add(dashboard.at("/templating/list/1/query").asText());

            // Then: every meter of the shaper's has a description
            assertThat(meters.registry().getMeters())
                    .filteredOn(meter -> meter.getId().getName().startsWith("shaper."))
                    .allSatisfy(meter -> assertThat(meter.getId().getDescription())
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
