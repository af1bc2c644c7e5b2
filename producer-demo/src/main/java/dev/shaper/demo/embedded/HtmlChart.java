package dev.shaper.demo.embedded;

import java.util.Locale;
import java.util.Map;

/**
 * Renders a demo run as a self-contained HTML page: an inline SVG of three panels over one time axis, above the
 * summary table. The upper panel has what arrives and what leaves: the input's bursts and the shaped records. The
 * middle one ({@link ReleasesPanel}) has the releases and the database's writes against the limit that holds them
 * and the bound the documentation states, on an axis made for those. The lower one ({@link BacklogPanel}) has the
 * queue and the rejections by reason, apart for records refused at arrival and those taken out of their queue. The
 * database's injected slowdown is a band across all three. Every axis is derived from the run's settings, so it keeps
 * its scale between runs, and its ticks are round; the legends sit right of the plots, where they cover no data.
 * The SVG has a {@code viewBox} and scales down to narrower pages; nothing on the page is wider than 1200 px. No
 * scripts, no external resources: the file can be opened anywhere, attached to an issue, or archived by CI.
 */
final class HtmlChart {

    static final int WIDTH = ChartPanel.WIDTH;
    private static final int INPUT_TOP = 45;
    private static final int INPUT_HEIGHT = 130;
    private static final int RELEASES_TOP = INPUT_TOP + INPUT_HEIGHT + 60;
    private static final int RELEASES_HEIGHT = 230;
    private static final int BACKLOG_TOP = RELEASES_TOP + RELEASES_HEIGHT + 60;
    private static final int BACKLOG_HEIGHT = 150;
    static final int HEIGHT = BACKLOG_TOP + BACKLOG_HEIGHT + 55;
    /** At most this many intervals on the time axis: 1, 2, 5 or 10 s for a demo of half a minute to a few. */
    private static final int TIME_INTERVALS = 10;
    private static final String INPUT_STROKE = "stroke=\"#d62728\" stroke-width=\"1.5\"";
    /** The legend's and the tests' name of the closed loop's capacity. */
    static final String ADAPTIVE_LABEL = "capacity (adaptive)";
    /**
     * The page's style: no element wider than the chart, and the summary's long values wrap in their cell rather
     * than widen the page.
     */
    static final String STYLE = "body{font-family:sans-serif;margin:8px;max-width:" + WIDTH + "px}"
            + "svg{display:block;width:100%;height:auto}"
            + "table.summary{border-collapse:collapse;width:100%;table-layout:fixed;font-size:13px}"
            + "table.summary th{width:11em;text-align:left;vertical-align:top;font-weight:normal;color:#555;"
            + "padding:2px 12px 2px 0}"
            + "table.summary td{font-family:monospace;overflow-wrap:anywhere;padding:2px 0}";

    private HtmlChart() {
    }

    /**
     * @param title    the page heading
     * @param series   the run's data
     * @param settings what the run was set to: the limits drawn, and the axes
     * @param summary  the summary's rows, name and value, shown in a table under the chart
     */
    static String render(String title, ChartSeries series, ChartSettings settings, Map<String, String> summary) {
        StringBuilder rows = new StringBuilder();
        summary.forEach((name, value) -> rows.append("<tr><th>").append(escape(name)).append("</th><td>")
                .append(escape(value)).append("</td></tr>\n"));
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title>\n<meta name=\"viewport\" content=\"width=device-width\"><style>" + STYLE
                + "</style></head>\n"
                + "<body>\n<h1>" + escape(title) + "</h1>\n" + svg(series, settings)
                + "<table class=\"summary\">\n" + rows + "</table>\n</body></html>\n";
    }

    /** The three panels as one SVG document, which also stands alone (the screenshot script cuts it out). */
    static String svg(ChartSeries series, ChartSettings settings) {
        NiceScale time = NiceScale.seconds(series.endSeconds(), TIME_INTERVALS);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
                + " width=\"100%%\" style=\"max-width:%dpx;height:auto\" font-family=\"sans-serif\""
                + " font-size=\"12\">%n",
                WIDTH, HEIGHT, WIDTH));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        inputPanel(svg, new ChartPanel("What arrives, and what leaves", INPUT_TOP, INPUT_HEIGHT, time,
                settings.inputScale(series.rates().stream().mapToDouble(RateTimeline.Rates::input).max().orElse(0))),
                series, settings);
        ReleasesPanel.draw(svg, new ChartPanel("Released per second, against the limit and its bound",
                RELEASES_TOP, RELEASES_HEIGHT, time, ReleasesPanel.scale(series, settings)), series, settings);
        BacklogPanel.draw(svg, new ChartPanel("What waits, and what is refused", BACKLOG_TOP, BACKLOG_HEIGHT, time,
                BacklogPanel.queueScale(series, settings)), BacklogPanel.rejectionsScale(series, settings), series,
                settings);
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds since the"
                + " producer started (shaped records by their release time, the others as sampled each second)"
                + "</text>%n", (ChartPanel.PLOT_LEFT + ChartPanel.PLOT_RIGHT) / 2, HEIGHT - 12));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void inputPanel(StringBuilder svg, ChartPanel panel, ChartSeries series, ChartSettings settings) {
        svg.append("<g class=\"panel-input\">\n");
        if (settings.slowdown() != null) {
            panel.band(svg, "slowdown", settings.slowdown().fromSeconds(), settings.slowdown().toSeconds(),
                    ReleasesPanel.SLOWDOWN_FILL);
        }
        panel.frame(svg, "records per second");
        panel.line(svg, "shaped", ReleasesPanel.SHAPED_STROKE, series.released(), ChartSeries.Point::atSeconds,
                ChartSeries.Point::value, panel.values());
        panel.line(svg, "input", INPUT_STROKE, series.rates(), RateTimeline.Rates::atSeconds,
                RateTimeline.Rates::input, panel.values());
        new ChartLegend().line(INPUT_STROKE, "input: produced per second")
                .line(ReleasesPanel.SHAPED_STROKE, "shaped: released per second").render(svg, panel.top());
        svg.append("</g>\n");
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
