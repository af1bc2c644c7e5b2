package dev.shaper.demo.embedded;

import dev.shaper.demo.traffic.Rates;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Renders a demo run as a self-contained HTML page: an inline SVG line chart of input, shaped and database
 * rates over time (with what all keys may release at their rates as a dashed line, and the database's capacity,
 * when the demo sets one, as a solid line; with the closed loop, the capacity it applied as a line of its own) above
 * the summary table. No scripts, no external resources: the file
 * can be opened anywhere, attached to an issue, or archived by CI.
 */
final class HtmlChart {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 20;
    private static final int BOTTOM = 50;
    private static final String DB_CAPACITY_COLOR = "#ff7f0e";
    private static final String ADAPTIVE_COLOR = "#9467bd";
    /** The legend's and the test's name of the closed loop's capacity. */
    static final String ADAPTIVE_LABEL = "capacity (adaptive)";

    private record Series(String label, String color, ToDoubleFunction<RateTimeline.Rates> value) {
    }

    private static final List<Series> SERIES = List.of(
            new Series("input (produced)", "#d62728", RateTimeline.Rates::input),
            new Series("shaped (released)", "#1f77b4", RateTimeline.Rates::shaped),
            new Series("database rows written", "#2ca02c", RateTimeline.Rates::db));

    private HtmlChart() {
    }

    /**
     * @param title      the page heading
     * @param rates      the per-second rates of the run; those with a capacity draw it as its own line
     * @param keysRate   what all keys together may release at their own rates, records/s (a dashed line)
     * @param dbCapacity the database's capacity, the shaper's total rate, units/s (a solid line); 0 for none
     * @param summary    the summary table as plain text, shown under the chart
     */
    static String render(String title, List<RateTimeline.Rates> rates, double keysRate, double dbCapacity,
                         String summary) {
        double maxX = Math.max(1, rates.stream().mapToDouble(RateTimeline.Rates::atSeconds).max().orElse(1));
        double maxY = niceCeiling(Math.max(Math.max(keysRate, dbCapacity), rates.stream()
                .mapToDouble(r -> Math.max(r.input(), Math.max(r.shaped(), r.db()))).max().orElse(1)));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
        axes(svg, maxX, maxY);
        double keysY = y(keysRate, maxY);
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555\""
                + " stroke-dasharray=\"6 4\"/>%n", LEFT, keysY, WIDTH - RIGHT, keysY));
        if (dbCapacity > 0) {
            double capY = y(dbCapacity, maxY);
            svg.append(String.format(Locale.ROOT, "<line class=\"db-capacity\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\""
                    + " y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>%n", LEFT, capY, WIDTH - RIGHT, capY,
                    DB_CAPACITY_COLOR));
            // Labelled on the line too: the legend's corner may sit far from it.
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"start\" fill=\"%s\">%s"
                    + "</text>%n", LEFT + 6, capY - 5, DB_CAPACITY_COLOR, escape(dbCapacityLabel(dbCapacity))));
        }
        for (Series s : SERIES) {
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(s.color()).append("\" points=\"");
            for (RateTimeline.Rates r : rates) {
                svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(r.atSeconds(), maxX),
                        y(s.value().applyAsDouble(r), maxY)));
            }
            svg.append("\"/>\n");
        }
        boolean adaptive = rates.stream().anyMatch(r -> !Double.isNaN(r.capacity()));
        if (adaptive) {
            // Dashed, as the fixed capacity above it is solid: the closed loop's ceiling, not a rate of records.
            svg.append("<polyline class=\"capacity-adaptive\" fill=\"none\" stroke-width=\"2\""
                    + " stroke-dasharray=\"8 3\" stroke=\"").append(ADAPTIVE_COLOR).append("\" points=\"");
            for (RateTimeline.Rates r : rates) {
                if (!Double.isNaN(r.capacity())) {
                    svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(r.atSeconds(), maxX),
                            y(r.capacity(), maxY)));
                }
            }
            svg.append("\"/>\n");
        }
        legend(svg, keysRate, dbCapacity, adaptive);
        svg.append("</svg>\n");
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>" + escape(title) + "</h1>\n"
                + svg + "<pre>" + escape(summary) + "</pre>\n</body></html>\n";
    }

    private static void axes(StringBuilder svg, double maxX, double maxY) {
        int bottom = HEIGHT - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                LEFT, bottom, WIDTH - RIGHT, bottom));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                LEFT, TOP, LEFT, bottom));
        for (int i = 0; i <= 5; i++) {
            double value = maxY * i / 5;
            double yy = y(value, maxY);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>%n",
                    LEFT, yy, WIDTH - RIGHT, yy, LEFT - 6, yy + 4, value));
            double t = maxX * i / 5;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f s</text>%n",
                    x(t, maxX), bottom + 18, t));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the"
                + " producer started</text>%n", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 8));
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\""
                + " text-anchor=\"middle\">records per second</text>%n", HEIGHT / 2, HEIGHT / 2));
    }

    private static void legend(StringBuilder svg, double keysRate, double dbCapacity, boolean adaptive) {
        int row = 0;
        for (Series s : SERIES) {
            legendRow(svg, row++, "stroke=\"" + s.color() + "\" stroke-width=\"2\"", s.label());
        }
        legendRow(svg, row++, "stroke=\"#555\" stroke-dasharray=\"6 4\"",
                "all keys at their rate (" + Rates.format(keysRate) + "/s)");
        if (dbCapacity > 0) {
            legendRow(svg, row++, "stroke=\"" + DB_CAPACITY_COLOR + "\" stroke-width=\"2\"",
                    dbCapacityLabel(dbCapacity));
        }
        if (adaptive) {
            legendRow(svg, row, "stroke=\"" + ADAPTIVE_COLOR + "\" stroke-width=\"2\" stroke-dasharray=\"8 3\"",
                    ADAPTIVE_LABEL);
        }
    }

    private static String dbCapacityLabel(double dbCapacity) {
        return "DB capacity (" + Rates.format(dbCapacity) + "/s)";
    }

    private static void legendRow(StringBuilder svg, int row, String stroke, String label) {
        int yy = TOP + 12 + row * 18;
        int x0 = WIDTH - RIGHT - 230;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>%n", x0, yy, x0 + 30, yy, stroke, x0 + 38, yy + 4, escape(label)));
    }

    private static double x(double seconds, double maxX) {
        return LEFT + seconds / maxX * (WIDTH - LEFT - RIGHT);
    }

    private static double y(double value, double maxY) {
        return HEIGHT - BOTTOM - value / maxY * (HEIGHT - TOP - BOTTOM);
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
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
