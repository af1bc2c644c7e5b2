package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The demo's chart, read back as XML: its panels, lines, legends and axes. */
class HtmlChartTest {

    private static final List<RateTimeline.Rates> RATES = List.of(new RateTimeline.Rates(1, 300, 100, 0, 100),
            new RateTimeline.Rates(2, 40, 100, 5, 95), new RateTimeline.Rates(3, 40, 90, 0, 90));
    private static final List<RateTimeline.Backlog> BACKLOG = List.of(
            backlog(1, 200, Map.of()), backlog(2, 135, Map.of("QUEUE_FULL", 5.0)),
            backlog(3, 85, Map.of("QUEUE_FULL", 0.0, "DELAY_EXCEEDED", 0.0)));

    @Test
    void shouldRenderASelfContainedPageWithAScalableChart() throws Exception {
        String html = HtmlChart.render("run <x>", RATES, BACKLOG, 100, 0, "produced 340");

        assertThat(html).startsWith("<!DOCTYPE html>").contains("produced 340", "run &lt;x&gt;");
        assertThat(html).doesNotContain("<script", "src=", "href=");
        Element svg = svg(html).getDocumentElement();
        assertThat(svg.getAttribute("viewBox")).isEqualTo("0 0 " + HtmlChart.WIDTH + " " + HtmlChart.HEIGHT);
        assertThat(svg.getAttribute("width")).isEqualTo("100%");
    }

    @Test
    void shouldDrawTheRatesAboveAndWhatWaitsAndIsRefusedBelow() throws Exception {
        Document svg = svg(HtmlChart.render("run", RATES, BACKLOG, 100, 0, ""));

        Element rates = one(svg, "//g[@class='panel-rates']");
        Element backlog = one(svg, "//g[@class='panel-backlog']");
        for (String line : List.of("input", "shaped", "database")) {
            assertThat(points(one(rates, ".//polyline[@class='" + line + "']"))).hasSize(RATES.size());
        }
        assertThat(points(one(backlog, ".//polygon[@class='queue']"))).hasSize(BACKLOG.size() + 2);
        // The rates panel sits above the backlog panel
        assertThat(maxY(one(rates, ".//polyline[@class='input']")))
                .isLessThan(minY(one(backlog, ".//polygon[@class='queue']")));
        assertThat(texts(rates)).contains("records per second", "input (produced)", "shaped (released)",
                "database rows written", "all keys at their rate (100/s)");
        assertThat(texts(backlog)).contains("records waiting", "rejected per second", "queue (records waiting, left)");
    }

    @Test
    void shouldKeepTheShapedLineVisibleUnderTheDatabaseLine() throws Exception {
        Document svg = svg(HtmlChart.render("run", RATES, BACKLOG, 100, 0, ""));

        Element shaped = one(svg, "//polyline[@class='shaped']");
        Element database = one(svg, "//polyline[@class='database']");
        assertThat(shaped.getAttribute("stroke")).isNotEqualTo(database.getAttribute("stroke"));
        assertThat(Double.parseDouble(shaped.getAttribute("stroke-width")))
                .isGreaterThan(Double.parseDouble(database.getAttribute("stroke-width")));
        assertThat(database.getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(shaped.getAttribute("stroke-dasharray")).isEmpty();
        // Drawn first, so that the database's line lies on top of it
        NodeList lines = (NodeList) XPathFactory.newInstance().newXPath().evaluate("//polyline", svg,
                XPathConstants.NODESET);
        assertThat(((Element) lines.item(0)).getAttribute("class")).isEqualTo("shaped");
    }

    @Test
    void shouldDrawOneLinePerReasonThatRejectedSomething() throws Exception {
        Document svg = svg(HtmlChart.render("run", RATES, BACKLOG, 100, 0, ""));

        NodeList rejected = nodes(svg, "//g[@class='panel-backlog']//polyline[@class='rejected']");
        assertThat(rejected.getLength()).isEqualTo(1);
        Element queueFull = (Element) rejected.item(0);
        assertThat(queueFull.getAttribute("data-reason")).isEqualTo("QUEUE_FULL");
        assertThat(points(queueFull)).hasSize(BACKLOG.size());
        assertThat(texts(svg.getDocumentElement())).contains("rejected QUEUE_FULL (per second, right)")
                .doesNotContain("rejected DELAY_EXCEEDED (per second, right)");
    }

    @Test
    void shouldDrawTheDbCapacityAsALabelledDashedLineWhenATotalRateIsSet() throws Exception {
        // Given: a run whose rates stay under 100/s, and a capacity of 250/s above all of them
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 90, 60, 0, 60),
                new RateTimeline.Rates(2, 40, 60, 5, 60));

        // When
        Document svg = svg(HtmlChart.render("run", rates, BACKLOG, 100, 250, ""));

        // Then: one dashed line for the capacity, named in the legend and on the line, and the axis reaches up to it
        Element capacity = one(svg, "//g[@class='panel-rates']/line[@class='db-capacity']");
        assertThat(capacity.getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(texts(svg.getDocumentElement()).stream().filter("DB capacity (250/s)"::equals)).hasSize(2);
        assertThat(texts(one(svg, "//g[@class='panel-rates']"))).contains("500");
    }

    @Test
    void shouldDrawTheAdaptiveCapacityAsALineOfItsOwnBesideTheFixedOne() throws Exception {
        // Given: a closed loop under a maximum of 60/s that cut the capacity to 30/s in the second second
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 90, 60, 0, 60, 60),
                new RateTimeline.Rates(2, 40, 30, 5, 30, 30));

        // When
        Document svg = svg(HtmlChart.render("run", rates, BACKLOG, 100, 60, ""));

        // Then: the adaptive capacity is a polyline through both samples, named in the legend; the maximum stays
        assertThat(points(one(svg, "//polyline[@class='capacity-adaptive']"))).hasSize(2);
        assertThat(texts(svg.getDocumentElement())).contains(HtmlChart.ADAPTIVE_LABEL, "DB capacity (60/s)");
    }

    @Test
    void shouldDrawNoCapacityLinesWhenNoneIsSet() throws Exception {
        Document svg = svg(HtmlChart.render("run", List.of(new RateTimeline.Rates(1, 300, 60, 0, 60)), BACKLOG, 100, 0,
                ""));

        assertThat(nodes(svg, "//*[@class='db-capacity' or @class='capacity-adaptive']").getLength()).isZero();
        assertThat(texts(svg.getDocumentElement())).noneMatch(t -> t.startsWith("DB capacity"));
    }

    @Test
    void shouldDrawAnEmptyRunWithoutFailing() throws Exception {
        Document svg = svg(HtmlChart.render("run", List.of(), List.of(), 100, 0, ""));

        assertThat(nodes(svg, "//g[@class='panel-rates' or @class='panel-backlog']").getLength()).isEqualTo(2);
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
        timeline.add(new Sample(1000, 100, 50, new TreeMap<>(Map.of("QUEUE_FULL", 10L)), 40));
        timeline.add(new Sample(3000, 300, 150, new TreeMap<>(Map.of("QUEUE_FULL", 30L)), 140));

        // The first rate runs from the producer's start (all zero) to the first sample
        assertThat(timeline.rates()).containsExactly(new RateTimeline.Rates(1, 100, 50, 10, 40),
                new RateTimeline.Rates(3, 100, 50, 10, 50));
        assertThat(timeline.last().queueDepth()).isEqualTo(300 - 150 - 30);
    }

    @Test
    void shouldComputeTheQueueAndTheRejectionsByReasonAtEachSample() {
        RateTimeline timeline = new RateTimeline();
        timeline.add(new Sample(1000, 100, 50, new TreeMap<>(Map.of("QUEUE_FULL", 10L)), 40));
        timeline.add(new Sample(3000, 300, 150, new TreeMap<>(Map.of("QUEUE_FULL", 30L, "RATE_LIMITED", 8L)), 140));

        assertThat(timeline.backlog()).containsExactly(backlog(1, 40, Map.of("QUEUE_FULL", 10.0)),
                backlog(3, 300 - 150 - 38, Map.of("QUEUE_FULL", 10.0, "RATE_LIMITED", 4.0)));
    }

    private static RateTimeline.Backlog backlog(double atSeconds, long queued, Map<String, Double> rejected) {
        return new RateTimeline.Backlog(atSeconds, queued, new TreeMap<>(rejected));
    }

    /** The page's SVG, parsed as the XML it must be. */
    private static Document svg(String html) throws Exception {
        String svg = html.substring(html.indexOf("<svg"), html.indexOf("</svg>") + "</svg>".length());
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static NodeList nodes(Object context, String xpath) throws Exception {
        return (NodeList) XPathFactory.newInstance().newXPath().evaluate(xpath, context, XPathConstants.NODESET);
    }

    private static Element one(Object context, String xpath) throws Exception {
        NodeList found = nodes(context, xpath);
        assertThat(found.getLength()).as(xpath).isEqualTo(1);
        return (Element) found.item(0);
    }

    private static List<double[]> points(Element element) {
        List<double[]> points = new ArrayList<>();
        for (String point : element.getAttribute("points").trim().split("\\s+")) {
            String[] xy = point.split(",");
            points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
        }
        return points;
    }

    private static double maxY(Element element) {
        return points(element).stream().mapToDouble(p -> p[1]).max().orElseThrow();
    }

    private static double minY(Element element) {
        return points(element).stream().mapToDouble(p -> p[1]).min().orElseThrow();
    }

    private static List<String> texts(Element element) {
        List<String> texts = new ArrayList<>();
        NodeList all = element.getElementsByTagName("text");
        for (int i = 0; i < all.getLength(); i++) {
            texts.add(all.item(i).getTextContent());
        }
        return texts;
    }
}
