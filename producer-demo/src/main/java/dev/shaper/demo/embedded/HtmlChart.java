package dev.shaper.demo.embedded;

import dev.shaper.RejectReason;
import dev.shaper.demo.traffic.Rates;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Renders a demo run as a self-contained HTML page: an inline SVG of two panels over one time axis, above the summary
 * table. The upper panel has the rates: input, shaped and database rows (the shaped line wide and pale, the database's
 * dashed on top of it, so both show where they agree), what all keys may release at their rates (dotted), the
 * database's capacity when the demo sets one (dashed) and, with the closed loop, the capacity it applied. The lower
 * panel has what waits and what is refused: the queue depth (an area, left axis) and the rejections per second by
 * reason (lines, right axis). The SVG has a {@code viewBox}, so it scales to the page. No scripts, no external
 * resources: the file can be opened anywhere, attached to an issue, or archived by CI.
 */
final class HtmlChart {

    static final int WIDTH = 960;
    private static final int LEFT = 70;
    private static final int RIGHT = 70;
    private static final int RATES_TOP = 20;
    private static final int RATES_HEIGHT = 300;
    private static final int BACKLOG_TOP = RATES_TOP + RATES_HEIGHT + 45;
    private static final int BACKLOG_HEIGHT = 150;
    static final int HEIGHT = BACKLOG_TOP + BACKLOG_HEIGHT + 50;
    private static final String KEYS_RATE_COLOR = "#555";
    private static final String DB_CAPACITY_COLOR = "#ff7f0e";
    private static final String ADAPTIVE_COLOR = "#9467bd";
    private static final String QUEUE_COLOR = "#bdbdbd";
    /** The legend's and the test's name of the closed loop's capacity. */
    static final String ADAPTIVE_LABEL = "capacity (adaptive)";
    /** The colour of each rejection reason, the same in every chart. */
    private static final Map<RejectReason, String> REASON_COLORS = Map.of(
            RejectReason.QUEUE_FULL, "#e377c2", RejectReason.DELAY_EXCEEDED, "#8c564b",
            RejectReason.RATE_LIMITED, "#bcbd22", RejectReason.INVALID_KEY, "#17becf",
            RejectReason.INVALID_ADMISSION_KEY, "#7f7f7f", RejectReason.INVALID_COST, "#393b79",
            RejectReason.RECORD_TOO_LARGE, "#637939", RejectReason.INVALID_TIMESTAMP, "#843c39",
            RejectReason.INVALID_RECORD, "#000000");

    /** A line of the rates panel: its class in the SVG, its legend, its stroke and its value. */
    private record Series(String cssClass, String label, String stroke, ToDoubleFunction<RateTimeline.Rates> value) {
    }

    private static final List<Series> SERIES = List.of(
            // Wide and pale, under the database's dashed line: where the two agree, both stay visible.
            new Series("shaped", "shaped (released)", "stroke=\"#6baed6\" stroke-width=\"6\" stroke-opacity=\"0.55\"",
                    RateTimeline.Rates::shaped),
            new Series("input", "input (produced)", "stroke=\"#d62728\" stroke-width=\"1.5\"",
                    RateTimeline.Rates::input),
            new Series("database", "database rows written", "stroke=\"#2ca02c\" stroke-width=\"2\""
                    + " stroke-dasharray=\"6 3\"", RateTimeline.Rates::db));

    private HtmlChart() {
    }

    /**
     * @param title      the page heading
     * @param rates      the per-second rates of the run; those with a capacity draw it as its own line
     * @param backlog    the queue depth and the rejections by reason at each sample
     * @param keysRate   what all keys together may release at their own rates, records/s (a dotted line)
     * @param dbCapacity the database's capacity, the shaper's total rate, units/s (a dashed line); 0 for none
     * @param summary    the summary table as plain text, shown under the chart
     */
    static String render(String title, List<RateTimeline.Rates> rates, List<RateTimeline.Backlog> backlog,
                         double keysRate, double dbCapacity, String summary) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>" + escape(title) + "</h1>\n"
                + svg(rates, backlog, keysRate, dbCapacity) + "<pre>" + escape(summary) + "</pre>\n</body></html>\n";
    }

    /** The two panels as one SVG document, which also stands alone (the screenshot script cuts it out). */
    static String svg(List<RateTimeline.Rates> rates, List<RateTimeline.Backlog> backlog, double keysRate,
                      double dbCapacity) {
        double maxX = Math.max(1, Math.max(
                rates.stream().mapToDouble(RateTimeline.Rates::atSeconds).max().orElse(1),
                backlog.stream().mapToDouble(RateTimeline.Backlog::atSeconds).max().orElse(1)));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
                + " width=\"100%%\" style=\"max-width:%dpx;height:auto\" font-family=\"sans-serif\" font-size=\"12\">%n",
                WIDTH, HEIGHT, WIDTH));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        ratesPanel(svg, rates, keysRate, dbCapacity, maxX);
        backlogPanel(svg, backlog, maxX);
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the"
                + " producer started</text>%n", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 12));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void ratesPanel(StringBuilder svg, List<RateTimeline.Rates> rates, double keysRate,
                                   double dbCapacity, double maxX) {
        Panel panel = new Panel(RATES_TOP, RATES_HEIGHT, maxX, niceCeiling(Math.max(Math.max(keysRate, dbCapacity),
                rates.stream().mapToDouble(r -> Math.max(r.input(), Math.max(r.shaped(), r.db()))).max().orElse(1))));
        svg.append("<g class=\"panel-rates\">\n");
        panel.axes(svg, "records per second", null, 0);
        double keysY = panel.y(keysRate);
        svg.append(String.format(Locale.ROOT, "<line class=\"keys-rate\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                + " stroke=\"%s\" stroke-dasharray=\"2 4\"/>%n", LEFT, keysY, WIDTH - RIGHT, keysY, KEYS_RATE_COLOR));
        if (dbCapacity > 0) {
            double capY = panel.y(dbCapacity);
            svg.append(String.format(Locale.ROOT, "<line class=\"db-capacity\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\""
                    + " y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"10 5\"/>%n", LEFT, capY,
                    WIDTH - RIGHT, capY, DB_CAPACITY_COLOR));
            // Labelled on the line too: the legend's corner may sit far from it.
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"start\" fill=\"%s\">%s"
                    + "</text>%n", LEFT + 6, capY - 5, DB_CAPACITY_COLOR, escape(dbCapacityLabel(dbCapacity))));
        }
        for (Series s : SERIES) {
            svg.append(panel.polyline(s.cssClass(), s.stroke(), rates, RateTimeline.Rates::atSeconds, s.value()));
        }
        List<RateTimeline.Rates> adaptive = rates.stream().filter(r -> !Double.isNaN(r.capacity())).toList();
        if (!adaptive.isEmpty()) {
            svg.append(panel.polyline("capacity-adaptive", "stroke=\"" + ADAPTIVE_COLOR + "\" stroke-width=\"2\"",
                    adaptive, RateTimeline.Rates::atSeconds, RateTimeline.Rates::capacity));
        }
        List<String[]> legend = new ArrayList<>();
        SERIES.forEach(s -> legend.add(new String[] {s.stroke(), s.label()}));
        legend.add(new String[] {"stroke=\"" + KEYS_RATE_COLOR + "\" stroke-dasharray=\"2 4\"",
                "all keys at their rate (" + Rates.format(keysRate) + "/s)"});
        if (dbCapacity > 0) {
            legend.add(new String[] {"stroke=\"" + DB_CAPACITY_COLOR + "\" stroke-width=\"2\" stroke-dasharray=\"10 5\"",
                    dbCapacityLabel(dbCapacity)});
        }
        if (!adaptive.isEmpty()) {
            legend.add(new String[] {"stroke=\"" + ADAPTIVE_COLOR + "\" stroke-width=\"2\"", ADAPTIVE_LABEL});
        }
        legend(svg, RATES_TOP, legend);
        svg.append("</g>\n");
    }

    private static void backlogPanel(StringBuilder svg, List<RateTimeline.Backlog> backlog, double maxX) {
        Set<String> reasons = new LinkedHashSet<>();
        for (RejectReason reason : RejectReason.values()) {
            if (backlog.stream().anyMatch(b -> b.rejectedByReason().getOrDefault(reason.name(), 0.0) > 0)) {
                reasons.add(reason.name());
            }
        }
        backlog.forEach(b -> b.rejectedByReason().forEach((reason, rate) -> {
            if (rate > 0) {
                reasons.add(reason); // a reason this build does not know still gets its line
            }
        }));
        double maxQueue = niceCeiling(backlog.stream().mapToDouble(RateTimeline.Backlog::queued).max().orElse(1));
        double maxRejected = niceCeiling(backlog.stream().flatMap(b -> b.rejectedByReason().values().stream())
                .mapToDouble(Double::doubleValue).max().orElse(1));
        Panel queue = new Panel(BACKLOG_TOP, BACKLOG_HEIGHT, maxX, maxQueue);
        Panel rejected = new Panel(BACKLOG_TOP, BACKLOG_HEIGHT, maxX, maxRejected);
        svg.append("<g class=\"panel-backlog\">\n");
        queue.axes(svg, "records waiting", "rejected per second", maxRejected);
        if (!backlog.isEmpty()) {
            StringBuilder points = new StringBuilder();
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", queue.x(backlog.get(0).atSeconds()), queue.y(0)));
            for (RateTimeline.Backlog b : backlog) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", queue.x(b.atSeconds()),
                        queue.y(Math.max(0, b.queued()))));
            }
            points.append(String.format(Locale.ROOT, "%.1f,%.1f", queue.x(backlog.get(backlog.size() - 1).atSeconds()),
                    queue.y(0)));
            svg.append("<polygon class=\"queue\" fill=\"").append(QUEUE_COLOR).append("\" fill-opacity=\"0.6\"")
                    .append(" stroke=\"#969696\" points=\"").append(points).append("\"/>\n");
        }
        List<String[]> legend = new ArrayList<>();
        legend.add(new String[] {"stroke=\"" + QUEUE_COLOR + "\" stroke-width=\"8\"", "queue (records waiting, left)"});
        for (String reason : reasons) {
            String stroke = "stroke=\"" + colorOf(reason) + "\" stroke-width=\"2\"";
            svg.append(rejected.polyline("rejected\" data-reason=\"" + escape(reason), stroke, backlog,
                    RateTimeline.Backlog::atSeconds, b -> b.rejectedByReason().getOrDefault(reason, 0.0)));
            legend.add(new String[] {stroke, "rejected " + reason + " (per second, right)"});
        }
        legend(svg, BACKLOG_TOP, legend);
        svg.append("</g>\n");
    }

    private static String colorOf(String reason) {
        for (RejectReason known : RejectReason.values()) {
            if (known.name().equals(reason)) {
                return REASON_COLORS.get(known);
            }
        }
        return "#000000";
    }

    /** One panel's frame: where it sits, and the largest values its axes show. */
    private record Panel(int top, int height, double maxX, double maxY) {

        double x(double seconds) {
            return LEFT + seconds / maxX * (WIDTH - LEFT - RIGHT);
        }

        double y(double value) {
            return top + height - value / maxY * height;
        }

        <T> String polyline(String cssClass, String stroke, List<T> points, ToDoubleFunction<T> atSeconds,
                            ToDoubleFunction<T> value) {
            StringBuilder line = new StringBuilder("<polyline class=\"" + cssClass + "\" fill=\"none\" " + stroke
                    + " points=\"");
            for (T p : points) {
                line.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(atSeconds.applyAsDouble(p)),
                        y(value.applyAsDouble(p))));
            }
            return line.append("\"/>\n").toString();
        }

        /** The axes, the grid, the time labels under the panel, and a right axis of {@code rightMax} if named. */
        void axes(StringBuilder svg, String leftLabel, String rightLabel, double rightMax) {
            int bottom = top + height;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                    LEFT, bottom, WIDTH - RIGHT, bottom));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                    LEFT, top, LEFT, bottom));
            int steps = height >= 250 ? 5 : 4;
            for (int i = 0; i <= steps; i++) {
                double value = maxY * i / steps;
                double yy = y(value);
                svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                        + " stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                        LEFT, yy, WIDTH - RIGHT, yy, LEFT - 6, yy + 4, label(value)));
                if (rightLabel != null) {
                    svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"start\">%s</text>%n",
                            WIDTH - RIGHT + 6, yy + 4, label(rightMax * i / steps)));
                }
            }
            for (int i = 0; i <= 5; i++) {
                double t = maxX * i / 5;
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f s</text>%n",
                        x(t), bottom + 18, t));
            }
            int middle = top + height / 2;
            svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\""
                    + " text-anchor=\"middle\">%s</text>%n", middle, middle, escape(leftLabel)));
            if (rightLabel != null) {
                int x = WIDTH - 12;
                svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                        WIDTH - RIGHT, top, WIDTH - RIGHT, bottom));
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" transform=\"rotate(90 %d %d)\""
                        + " text-anchor=\"middle\">%s</text>%n", x, middle, x, middle, escape(rightLabel)));
            }
        }

        private static String label(double value) {
            return value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value) : Rates.format(value);
        }
    }

    /** A legend in the top right corner of a panel, on a white box so that the lines behind it do not cross it. */
    private static void legend(StringBuilder svg, int top, List<String[]> rows) {
        int longest = rows.stream().mapToInt(r -> r[1].length()).max().orElse(0);
        int width = 50 + (int) Math.ceil(longest * 6.5); // about 6.5 px per character at 12 px
        int x0 = WIDTH - RIGHT - width;
        svg.append(String.format(Locale.ROOT, "<rect class=\"legend\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                + " fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>%n", x0 - 6, top + 4, width,
                rows.size() * 18 + 6));
        for (int row = 0; row < rows.size(); row++) {
            int yy = top + 14 + row * 18;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", x0, yy, x0 + 30, yy, rows.get(row)[0], x0 + 38, yy + 4,
                    escape(rows.get(row)[1])));
        }
    }

    private static String dbCapacityLabel(double dbCapacity) {
        return "DB capacity (" + Rates.format(dbCapacity) + "/s)";
    }

    /** The smallest of 1, 2, 5 times a power of ten at or above {@code value}: round axis labels. */
    static double niceCeiling(double value) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(Math.max(value, 1))));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * magnitude >= value) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
