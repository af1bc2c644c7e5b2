package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HtmlChartTest {

    @Test
    void shouldDrawOneLinePerSeriesInASelfContainedPage() {
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 300, 100, 0, 100),
                new RateTimeline.Rates(2, 40, 100, 5, 95));

        String html = HtmlChart.render("run <x>", rates, 100, 0, "produced 340");

        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg", "produced 340", "run &lt;x&gt;");
        assertThat(html.split("<polyline", -1)).hasSize(4);
        assertThat(html).doesNotContain("<script", "src=", "href=");
    }

    @Test
    void shouldDrawTheDbCapacityAsALabelledLineWhenATotalRateIsSet() {
        // Given: a run whose rates stay under 100/s, and a capacity of 250/s above all of them
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 90, 60, 0, 60),
                new RateTimeline.Rates(2, 40, 60, 5, 60));

        // When
        String html = HtmlChart.render("run", rates, 100, 250, "");

        // Then: one line for the capacity, named in the legend and on the line, and the axis reaches up to it
        assertThat(html.split("class=\"db-capacity\"", -1)).hasSize(2);
        assertThat(html.split("DB capacity \\(250/s\\)", -1)).hasSize(3);
        assertThat(html).contains(">500</text>");
    }

    @Test
    void shouldDrawTheAdaptiveCapacityAsALineOfItsOwnBesideTheFixedOne() {
        // Given: a closed loop under a maximum of 60/s that cut the capacity to 30/s in the second second
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 90, 60, 0, 60, 60),
                new RateTimeline.Rates(2, 40, 30, 5, 30, 30));

        // When
        String html = HtmlChart.render("run", rates, 100, 60, "");

        // Then: the adaptive capacity is a polyline through both samples, named in the legend; the maximum stays
        assertThat(html).contains("class=\"capacity-adaptive\"", HtmlChart.ADAPTIVE_LABEL, "DB capacity (60/s)");
        String line = html.substring(html.indexOf("class=\"capacity-adaptive\""));
        String points = line.substring(line.indexOf("points=\"") + 8, line.indexOf("\"/>"));
        assertThat(points.trim().split(" ")).hasSize(2);
        assertThat(html.split("<polyline", -1)).hasSize(5);
    }

    @Test
    void shouldDrawNoAdaptiveCapacityWhenTheCapacityIsFixed() {
        String html = HtmlChart.render("run", List.of(new RateTimeline.Rates(1, 90, 60, 0, 60)), 100, 60, "");

        assertThat(html).doesNotContain("capacity-adaptive", HtmlChart.ADAPTIVE_LABEL);
    }

    @Test
    void shouldDrawNoDbCapacityWhenNoTotalRateIsSet() {
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 300, 60, 0, 60));

        String html = HtmlChart.render("run", rates, 100, 0, "");

        assertThat(html).doesNotContain("db-capacity", "DB capacity").contains("all keys at their rate (100/s)");
    }

    @Test
    void shouldRoundTheAxisUpToOneTwoOrFive() {
        assertThat(HtmlChart.niceCeiling(340)).isEqualTo(500);
        assertThat(HtmlChart.niceCeiling(100)).isEqualTo(100);
        assertThat(HtmlChart.niceCeiling(101)).isEqualTo(200);
        assertThat(HtmlChart.niceCeiling(0.3)).isEqualTo(1);
    }

    @Test
    void shouldComputeRatesBetweenSamples() {
        RateTimeline timeline = new RateTimeline();
        timeline.add(new Sample(1000, 100, 50, new java.util.TreeMap<>(java.util.Map.of("QUEUE_FULL", 10L)), 40));
        timeline.add(new Sample(3000, 300, 150, new java.util.TreeMap<>(java.util.Map.of("QUEUE_FULL", 30L)), 140));

        // The first rate runs from the producer's start (all zero) to the first sample
        assertThat(timeline.rates()).containsExactly(new RateTimeline.Rates(1, 100, 50, 10, 40),
                new RateTimeline.Rates(3, 100, 50, 10, 50));
        assertThat(timeline.last().queueDepth()).isEqualTo(300 - 150 - 30);
    }
}
