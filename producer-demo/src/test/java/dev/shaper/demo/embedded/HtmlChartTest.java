package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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

/** The demo's chart, read back as XML: its panels, lines, limits, legends, bands and axes. */
class HtmlChartTest {

    /** The demo's defaults: 5 keys at 20/s, no capacity, bursts of 300 on 40/s, a 3 s bound on the wait. */
    private static final ChartSettings KEYS_ONLY = new ChartSettings(20, 5, 0, 0, false, 3, 340, null);
    /** The same with a database of 40/s, whose second may hold 48 (capacity +5 %, a late release, one per task). */
    private static final ChartSettings CAPPED = new ChartSettings(20, 5, 40, 48, false, 3, 340, null);
    private static final ChartSettings.Slowdown SLOWDOWN = new ChartSettings.Slowdown(9.8, 19.8,
            "DB slowdown, 9.8 s to 19.8 s: each batch 50 ms slower");
    /** A closed loop under 60/s, the database slowed from 9.8 s to 19.8 s. */
    private static final ChartSettings ADAPTIVE = new ChartSettings(20, 5, 60, 71, true, 3, 340, SLOWDOWN);

    private static final List<RateTimeline.Rates> RATES = List.of(new RateTimeline.Rates(1, 340, 100, 0, 100),
            new RateTimeline.Rates(2, 40, 100, 5, 95), new RateTimeline.Rates(3, 40, 90, 0, 90));
    private static final long[] RELEASED = {62, 98, 105};
    private static final List<RateTimeline.Backlog> BACKLOG = List.of(
            backlog(1, 200, Map.of(), Map.of()),
            backlog(2, 135, Map.of("QUEUE_FULL", 5.0, "DELAY_EXCEEDED", 120.0), Map.of("DELAY_EXCEEDED", 3.0)),
            backlog(3, 85, Map.of("QUEUE_FULL", 0.0, "DELAY_EXCEEDED", 0.0), Map.of("DELAY_EXCEEDED", 0.0)));
    private static final ChartSeries SERIES = new ChartSeries(RATES, RELEASED, BACKLOG);

    @Test
    void shouldRenderASelfContainedPageThatFitsAWindowOf1400PixelsWithoutScrollingSideways() throws Exception {
        Map<String, String> summary = new LinkedHashMap<>();
        summary.put("run", "bursts of 300 <every> 5 s " + "on top of 40/s, ".repeat(20));
        summary.put("produced", "340");

        String html = HtmlChart.render("run <x>", SERIES, KEYS_ONLY, summary);

        assertThat(html).startsWith("<!DOCTYPE html>").contains("run &lt;x&gt;", "&lt;every&gt;");
        assertThat(html).doesNotContain("<script", "src=", "href=");
        // The chart: a viewBox no wider than the window less the page's margins, scaled to the page's width
        Element svg = svg(html).getDocumentElement();
        String[] viewBox = svg.getAttribute("viewBox").split(" ");
        assertThat(Integer.parseInt(viewBox[2])).isEqualTo(HtmlChart.WIDTH).isLessThanOrEqualTo(1400 - 2 * 8);
        assertThat(svg.getAttribute("width")).isEqualTo("100%");
        assertThat(svg.getAttribute("style")).contains("max-width:" + HtmlChart.WIDTH + "px");
        // The summary: a table as wide as the page, whose long values wrap in their cells; no preformatted text
        assertThat(html).doesNotContain("<pre").contains("<table class=\"summary\">",
                "<tr><th>produced</th><td>340</td></tr>");
        assertThat(HtmlChart.STYLE).contains("body{font-family:sans-serif;margin:8px;max-width:" + HtmlChart.WIDTH
                + "px}", "table.summary{border-collapse:collapse;width:100%;table-layout:fixed",
                "overflow-wrap:anywhere");
    }

    @Test
    void shouldDrawWhatArrivesWhatIsReleasedAndWhatWaitsInThreePanelsFromTopToBottom() throws Exception {
        Document svg = svg(HtmlChart.render("run", SERIES, KEYS_ONLY, Map.of()));

        Element input = one(svg, "//g[@class='panel-input']");
        Element releases = one(svg, "//g[@class='panel-releases']");
        Element backlog = one(svg, "//g[@class='panel-backlog']");
        assertThat(points(one(input, ".//polyline[@class='input']"))).hasSize(RATES.size());
        assertThat(points(one(input, ".//polyline[@class='shaped']"))).hasSize(RELEASED.length);
        assertThat(points(one(releases, ".//polyline[@class='shaped']"))).hasSize(RELEASED.length);
        assertThat(points(one(releases, ".//polyline[@class='database']"))).hasSize(RATES.size());
        assertThat(points(one(backlog, ".//polygon[@class='queue']"))).hasSize(BACKLOG.size() + 2);
        assertThat(plot(input).bottom()).isLessThan(plot(releases).top());
        assertThat(plot(releases).bottom()).isLessThan(plot(backlog).top());
        assertThat(texts(backlog)).contains("records waiting", "rejected per second");
        assertThat(legend(backlog)).contains("queue: records waiting (left)");
    }

    @Test
    void shouldDrawTheReleasesByReleaseTimeAgainstTheKeysLimitAndTheBoundTheDocsState() throws Exception {
        Document svg = svg(HtmlChart.render("run", SERIES, KEYS_ONLY, Map.of()));

        Element releases = one(svg, "//g[@class='panel-releases']");
        Axis axis = leftAxis(releases);
        // The limit the shaped rate is held to, and the bound of any one second: rate + 1 per key, 105 for 5 keys
        assertThat(axis.value(y(one(releases, ".//line[@class='keys-rate']")))).isCloseTo(100, within(0.5));
        assertThat(axis.value(y(one(releases, ".//line[@class='keys-bound']")))).isCloseTo(105, within(0.5));
        assertThat(legend(releases)).contains("limit: 5 keys at 20/s = 100/s",
                "bound: rate + 1 per key in any second = 105/s");
        assertThat(texts(releases)).contains("105/s", "100/s");
        // The shaped line: the releases of each second, drawn on the same axis
        assertThat(points(one(releases, ".//polyline[@class='shaped']"))).extracting(p -> axis.value(p[1]))
                .satisfiesExactly(v -> assertThat(v).isCloseTo(62, within(0.5)),
                        v -> assertThat(v).isCloseTo(98, within(0.5)), v -> assertThat(v).isCloseTo(105, within(0.5)));
        // An axis made for the bound, not for the input's 340/s
        assertThat(axis.max()).isEqualTo(120);
        assertThat(nodes(releases, ".//*[@class='db-capacity' or @class='capacity-bound']").getLength()).isZero();
    }

    @Test
    void shouldKeepTheShapedLineVisibleUnderTheDatabaseLine() throws Exception {
        Document svg = svg(HtmlChart.render("run", SERIES, KEYS_ONLY, Map.of()));

        Element shaped = one(svg, "//g[@class='panel-releases']//polyline[@class='shaped']");
        Element database = one(svg, "//g[@class='panel-releases']//polyline[@class='database']");
        assertThat(shaped.getAttribute("stroke")).isNotEqualTo(database.getAttribute("stroke"));
        assertThat(Double.parseDouble(shaped.getAttribute("stroke-width")))
                .isGreaterThan(Double.parseDouble(database.getAttribute("stroke-width")));
        assertThat(database.getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(shaped.getAttribute("stroke-dasharray")).isEmpty();
        // Drawn first, so that the database's line lies on top of it
        assertThat(((Element) nodes(svg, "//g[@class='panel-releases']//polyline").item(0)).getAttribute("class"))
                .isEqualTo("shaped");
    }

    @Test
    void shouldDrawTheCapacityAndItsBoundInsteadOfTheKeysWhenTheCapacityHoldsTheReleasesBack() throws Exception {
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 340, 40, 0, 38),
                new RateTimeline.Rates(2, 40, 44, 5, 46));
        Document svg = svg("run", new ChartSeries(rates, new long[] {40, 44}, BACKLOG), CAPPED);

        Element releases = one(svg, "//g[@class='panel-releases']");
        Axis axis = leftAxis(releases);
        assertThat(axis.value(y(one(releases, ".//line[@class='db-capacity']")))).isCloseTo(40, within(0.5));
        assertThat(axis.value(y(one(releases, ".//line[@class='capacity-bound']")))).isCloseTo(48, within(0.5));
        assertThat(one(releases, ".//line[@class='db-capacity']").getAttribute("stroke-dasharray")).isNotEmpty();
        assertThat(nodes(releases, ".//*[@class='keys-rate' or @class='keys-bound']").getLength()).isZero();
        assertThat(legend(releases)).contains("limit: DB capacity (40/s)",
                "bound: capacity +5 %, one late release, one per task = 48/s");
        // The axis is made for the capacity's bound, with room above it
        assertThat(axis.max()).isEqualTo(60);
    }

    @Test
    void shouldGiveTheAdaptiveCapacityAnAxisWhereItsMovesFillThePanel() throws Exception {
        // Given: a closed loop under 60/s that fell to 12/s and came back, under bursts of 340/s
        List<RateTimeline.Rates> rates = List.of(new RateTimeline.Rates(1, 340, 60, 0, 60, 60),
                new RateTimeline.Rates(2, 40, 12, 5, 12, 12), new RateTimeline.Rates(3, 40, 60, 0, 60, 60));

        // When
        Document svg = svg("run", new ChartSeries(rates, new long[] {60, 12, 58}, BACKLOG), ADAPTIVE);

        // Then: the capacity is drawn on the releases' axis, which the input's bursts do not stretch
        Element releases = one(svg, "//g[@class='panel-releases']");
        Element capacity = one(releases, ".//polyline[@class='capacity-adaptive']");
        Axis axis = leftAxis(releases);
        assertThat(axis.max()).isEqualTo(80);
        assertThat(points(capacity)).extracting(p -> axis.value(p[1]))
                .satisfiesExactly(v -> assertThat(v).isCloseTo(60, within(0.5)),
                        v -> assertThat(v).isCloseTo(12, within(0.5)), v -> assertThat(v).isCloseTo(60, within(0.5)));
        // And: its fall from 60/s to 12/s spans more than half the panel's height
        double span = points(capacity).stream().mapToDouble(p -> p[1]).max().orElseThrow()
                - points(capacity).stream().mapToDouble(p -> p[1]).min().orElseThrow();
        assertThat(span).isGreaterThan(plot(releases).height() / 2);
        assertThat(legend(releases)).contains("DB capacity (60/s), the loop's maximum",
                HtmlChart.ADAPTIVE_LABEL + ": the limit in force",
                "bound at the maximum: capacity +5 %, one late release, one per task = 71/s");
    }

    @Test
    void shouldKeepEveryLegendRightOfThePlotsWhereItCoversNoData() throws Exception {
        Document svg = svg("run", SERIES, ADAPTIVE);

        NodeList legends = nodes(svg, "//rect[@class='legend']");
        assertThat(legends.getLength()).isEqualTo(3);
        double plotsRight = 0;
        NodeList plots = nodes(svg, "//rect[@class='plot']");
        for (int i = 0; i < plots.getLength(); i++) {
            plotsRight = Math.max(plotsRight, Box.of((Element) plots.item(i)).right());
        }
        for (int i = 0; i < legends.getLength(); i++) {
            Box legend = Box.of((Element) legends.item(i));
            assertThat(legend.left()).as("legend %d", i).isGreaterThan(plotsRight);
            assertThat(legend.right()).as("legend %d", i).isLessThanOrEqualTo(HtmlChart.WIDTH);
        }
        // And: every legend entry's text lies in its box
        NodeList groups = nodes(svg, "//g[@class='legend']");
        for (int i = 0; i < groups.getLength(); i++) {
            Box box = Box.of(one(groups.item(i), "./rect[@class='legend']"));
            NodeList labels = nodes(groups.item(i), ".//text");
            for (int j = 0; j < labels.getLength(); j++) {
                double labelY = Double.parseDouble(((Element) labels.item(j)).getAttribute("y"));
                assertThat(labelY).isBetween(box.top(), box.bottom());
            }
        }
    }

    @Test
    void shouldShadeTheSlowdownAcrossEveryPanelWhenTheDatabaseWasSlowedDown() throws Exception {
        // Given: a run of 40 s, its database slowed from 9.8 s to 19.8 s, and one without a slowdown
        ChartSeries run = steadyRun(40);

        // When
        Document slowed = svg("run", run, ADAPTIVE);
        Document steady = svg("run", run, CAPPED);

        // Then: a band in each panel, over the slowdown's time exactly, under the data; named in a legend
        NodeList bands = nodes(slowed, "//rect[@class='slowdown']");
        assertThat(bands.getLength()).isEqualTo(3);
        Axis time = timeAxis(slowed);
        for (int i = 0; i < bands.getLength(); i++) {
            Element band = (Element) bands.item(i);
            assertThat(time.value(Box.of(band).left())).isCloseTo(9.8, within(0.05));
            assertThat(time.value(Box.of(band).right())).isCloseTo(19.8, within(0.05));
            assertThat(Box.of(band).height()).isEqualTo(plot((Element) band.getParentNode()).height());
            assertThat(nodes(band, "preceding-sibling::polyline | preceding-sibling::polygon").getLength()).isZero();
        }
        assertThat(legend(one(slowed, "//g[@class='panel-releases']"))).contains("DB slowdown, 9.8 s to 19.8 s:"
                + " each batch 50 ms slower");
        assertThat(nodes(steady, "//rect[@class='slowdown']").getLength()).isZero();
    }

    @Test
    void shouldCutTheSlowdownsBandAtTheEndOfTheTimeAxis() throws Exception {
        // A run that ended before the slowdown did
        Document svg = svg("run", steadyRun(14), ADAPTIVE);

        Axis time = timeAxis(svg);
        assertThat(time.max()).isEqualTo(14);
        assertThat(time.value(Box.of(one(svg, "//g[@class='panel-input']/rect[@class='slowdown']")).right()))
                .isCloseTo(14, within(0.05));
    }

    @Test
    void shouldPutTheTicksOnRoundSteps() throws Exception {
        // Given: a run of 33 s
        List<RateTimeline.Rates> rates = new ArrayList<>();
        List<RateTimeline.Backlog> backlog = new ArrayList<>();
        for (int second = 1; second <= 33; second++) {
            rates.add(new RateTimeline.Rates(second, second % 5 == 1 ? 340 : 40, 90, 0, 90));
            backlog.add(backlog(second, 100, Map.of("DELAY_EXCEEDED", 10.0), Map.of()));
        }

        // When
        Document svg = svg("run", new ChartSeries(rates, new long[33], backlog), KEYS_ONLY);

        // Then: every 5 s on the time axis, and round steps on every value axis
        assertThat(texts(svg, "//g[@class='panel-input']/text[@class='tick-time']")).containsExactly("0 s", "5 s",
                "10 s", "15 s", "20 s", "25 s", "30 s", "35 s");
        assertThat(texts(svg, "//g[@class='panel-input']/text[@class='tick-left']")).containsExactly("0", "100",
                "200", "300", "400");
        assertThat(texts(svg, "//g[@class='panel-releases']/text[@class='tick-left']")).containsExactly("0", "20",
                "40", "60", "80", "100", "120");
        assertThat(texts(svg, "//g[@class='panel-backlog']/text[@class='tick-left']")).containsExactly("0", "100",
                "200", "300", "400");
        assertThat(texts(svg, "//g[@class='panel-backlog']/text[@class='tick-right']")).containsExactly("0", "100",
                "200", "300", "400");
    }

    @Test
    void shouldDrawTheRejectionsOfAReasonGivenAtBothStagesAsTwoLines() throws Exception {
        Document svg = svg("run", SERIES, KEYS_ONLY);

        Element backlog = one(svg, "//g[@class='panel-backlog']");
        Element atArrival = one(backlog, ".//polyline[@data-reason='DELAY_EXCEEDED' and @data-stage='AT_ARRIVAL']");
        Element whileQueued = one(backlog,
                ".//polyline[@data-reason='DELAY_EXCEEDED' and @data-stage='WHILE_QUEUED']");
        assertThat(atArrival.getAttribute("stroke")).isNotEqualTo(whileQueued.getAttribute("stroke"));
        Axis rejections = rightAxis(backlog);
        assertThat(points(atArrival)).extracting(p -> rejections.value(p[1]))
                .satisfiesExactly(v -> assertThat(v).isCloseTo(0, within(0.5)),
                        v -> assertThat(v).isCloseTo(120, within(0.5)), v -> assertThat(v).isCloseTo(0, within(0.5)));
        assertThat(points(whileQueued)).extracting(p -> rejections.value(p[1]))
                .satisfiesExactly(v -> assertThat(v).isCloseTo(0, within(0.5)),
                        v -> assertThat(v).isCloseTo(3, within(0.5)), v -> assertThat(v).isCloseTo(0, within(0.5)));
        // A reason only ever given at arrival has one line
        assertThat(nodes(backlog, ".//polyline[@data-reason='QUEUE_FULL']").getLength()).isEqualTo(1);
        assertThat(legend(backlog)).contains("DELAY_EXCEEDED at arrival (right)", "QUEUE_FULL at arrival (right)",
                "DELAY_EXCEEDED while queued: expired or cut (right)");
    }

    @Test
    void shouldKeepTheAxesOfTheSameSettingsWhateverTheDataUnlessItGoesAboveThem() throws Exception {
        // Given: a quiet run and a busy one of the same settings, and one whose queue went beyond what they allow
        ChartSeries quiet = new ChartSeries(List.of(new RateTimeline.Rates(1, 40, 40, 0, 40)), new long[] {40},
                List.of(backlog(1, 10, Map.of("DELAY_EXCEEDED", 1.0), Map.of())));
        ChartSeries busy = new ChartSeries(List.of(new RateTimeline.Rates(1, 340, 48, 0, 48)), new long[] {48},
                List.of(backlog(1, 350, Map.of("DELAY_EXCEEDED", 300.0), Map.of("DELAY_EXCEEDED", 40.0))));
        ChartSeries overflowing = new ChartSeries(List.of(new RateTimeline.Rates(1, 340, 100, 0, 104)),
                new long[] {104}, List.of(backlog(1, 950, Map.of(), Map.of())));

        // Then: the same maxima for both runs of the settings, and the next round one above data beyond them
        for (ChartSettings settings : List.of(KEYS_ONLY, CAPPED, ADAPTIVE)) {
            assertThat(maxima(svg("run", quiet, settings))).as("maxima under %s", settings)
                    .isEqualTo(maxima(svg("run", busy, settings)));
        }
        assertThat(maxima(svg("run", quiet, KEYS_ONLY))).containsExactly(400.0, 120.0, 400.0, 400.0);
        assertThat(maxima(svg("run", quiet, CAPPED))).containsExactly(400.0, 60.0, 400.0, 400.0);
        assertThat(maxima(svg("run", overflowing, KEYS_ONLY))).containsExactly(400.0, 120.0, 1000.0, 400.0);
    }

    @Test
    void shouldDrawAnEmptyRunWithoutFailing() throws Exception {
        Document svg = svg("run", new ChartSeries(List.of(), new long[0], List.of()), ADAPTIVE);

        assertThat(nodes(svg, "//g[@class='panel-input' or @class='panel-releases' or @class='panel-backlog']")
                .getLength()).isEqualTo(3);
    }

    @Test
    void shouldWrapALegendsLabelBetweenWordsToTheColumnsWidth() {
        assertThat(ChartLegend.wrap("bound: capacity +5 %, one late release, one per task = 48/s"))
                .containsExactly("bound: capacity +5 %, one late", "release, one per task = 48/s");
        assertThat(ChartLegend.wrap("input: produced per second")).containsExactly("input: produced per second");
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
    void shouldComputeTheQueueAndTheRejectionsByReasonAndStageAtEachSample() {
        RateTimeline timeline = new RateTimeline();
        timeline.add(new Sample(1000, 100, 50, new TreeMap<>(Map.of("DELAY_EXCEEDED", 10L)), 40));
        timeline.add(new Sample(3000, 300, 150, new TreeMap<>(Map.of("DELAY_EXCEEDED", 30L, "RATE_LIMITED", 8L)),
                new TreeMap<>(Map.of("DELAY_EXCEEDED", 6L)), 140, Double.NaN));

        assertThat(timeline.backlog()).containsExactly(backlog(1, 40, Map.of("DELAY_EXCEEDED", 10.0), Map.of()),
                backlog(3, 300 - 150 - 38, Map.of("DELAY_EXCEEDED", 7.0, "RATE_LIMITED", 4.0),
                        Map.of("DELAY_EXCEEDED", 3.0)));
    }

    /** A run of {@code seconds} at 40/s in and out, nothing waiting. */
    private static ChartSeries steadyRun(int seconds) {
        List<RateTimeline.Rates> rates = new ArrayList<>();
        List<RateTimeline.Backlog> backlog = new ArrayList<>();
        long[] released = new long[seconds];
        for (int second = 1; second <= seconds; second++) {
            rates.add(new RateTimeline.Rates(second, 40, 40, 0, 40, 60));
            backlog.add(backlog(second, 0, Map.of(), Map.of()));
            released[second - 1] = 40;
        }
        return new ChartSeries(rates, released, backlog);
    }

    /** The labels of the legend in {@code panel}, each entry's lines joined. */
    private static List<String> legend(Element panel) throws Exception {
        List<String> labels = new ArrayList<>();
        NodeList entries = nodes(panel, ".//g[@class='legend-entry']");
        for (int i = 0; i < entries.getLength(); i++) {
            labels.add(String.join(" ", texts((Element) entries.item(i))));
        }
        return labels;
    }

    private static RateTimeline.Backlog backlog(double atSeconds, long queued, Map<String, Double> atArrival,
                                                Map<String, Double> whileQueued) {
        return new RateTimeline.Backlog(atSeconds, queued, new TreeMap<>(atArrival), new TreeMap<>(whileQueued));
    }

    /** The maxima of the input's, the releases', the queue's and the rejections' axes. */
    private static List<Double> maxima(Document svg) throws Exception {
        return List.of(leftAxis(one(svg, "//g[@class='panel-input']")).max(),
                leftAxis(one(svg, "//g[@class='panel-releases']")).max(),
                leftAxis(one(svg, "//g[@class='panel-backlog']")).max(),
                rightAxis(one(svg, "//g[@class='panel-backlog']")).max());
    }

    private static Document svg(String title, ChartSeries series, ChartSettings settings) throws Exception {
        return svg(HtmlChart.render(title, series, settings, Map.of()));
    }

    /** The page's SVG, parsed as the XML it must be. */
    private static Document svg(String html) throws Exception {
        String svg = html.substring(html.indexOf("<svg"), html.indexOf("</svg>") + "</svg>".length());
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    /** A linear axis read off its tick labels: the value at a position, and its largest value. */
    private record Axis(double position0, double value0, double position1, double value1) {
        double value(double position) {
            return value0 + (position - position0) / (position1 - position0) * (value1 - value0);
        }

        double max() {
            return Math.max(value0, value1);
        }
    }

    private static Axis leftAxis(Element panel) throws Exception {
        return axis(nodes(panel, "./text[@class='tick-left']"), "y");
    }

    private static Axis rightAxis(Element panel) throws Exception {
        return axis(nodes(panel, "./text[@class='tick-right']"), "y");
    }

    private static Axis timeAxis(Document svg) throws Exception {
        return axis(nodes(svg, "//g[@class='panel-input']/text[@class='tick-time']"), "x");
    }

    /** From the first and the last tick; a label's y is its line's + 4 (the text's baseline), which cancels out. */
    private static Axis axis(NodeList ticks, String coordinate) {
        Element first = (Element) ticks.item(0);
        Element last = (Element) ticks.item(ticks.getLength() - 1);
        return new Axis(Double.parseDouble(first.getAttribute(coordinate)) - ("y".equals(coordinate) ? 4 : 0),
                number(first.getTextContent()), Double.parseDouble(last.getAttribute(coordinate))
                - ("y".equals(coordinate) ? 4 : 0), number(last.getTextContent()));
    }

    private static double number(String label) {
        return Double.parseDouble(label.replace(" s", ""));
    }

    private static double y(Element line) {
        return Double.parseDouble(line.getAttribute("y1"));
    }

    /** A rectangle's extent. */
    private record Box(double left, double top, double right, double bottom) {
        static Box of(Element rect) {
            double x = Double.parseDouble(rect.getAttribute("x"));
            double y = Double.parseDouble(rect.getAttribute("y"));
            return new Box(x, y, x + Double.parseDouble(rect.getAttribute("width")),
                    y + Double.parseDouble(rect.getAttribute("height")));
        }

        double height() {
            return bottom - top;
        }
    }

    private static Box plot(Element panel) throws Exception {
        return Box.of(one(panel, "./rect[@class='plot']"));
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

    private static List<String> texts(Element element) {
        List<String> texts = new ArrayList<>();
        NodeList all = element.getElementsByTagName("text");
        for (int i = 0; i < all.getLength(); i++) {
            texts.add(all.item(i).getTextContent());
        }
        return texts;
    }

    private static List<String> texts(Document svg, String xpath) throws Exception {
        List<String> texts = new ArrayList<>();
        NodeList all = nodes(svg, xpath);
        for (int i = 0; i < all.getLength(); i++) {
            texts.add(all.item(i).getTextContent());
        }
        return texts;
    }
}
