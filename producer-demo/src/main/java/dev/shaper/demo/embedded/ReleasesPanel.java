package dev.shaper.demo.embedded;

import dev.shaper.demo.traffic.Rates;

/**
 * The chart's middle panel: what the shaper released in each second, and what the database wrote, against what
 * holds the releases back. Of the keys' rates and the database's capacity it draws the one that binds, as a limit
 * line, and the bound the documentation states for any one second above it (lighter), so that a reader can check
 * the shaped line against both; with the closed loop, the capacity it applied too. The axis is made for those
 * lines, not for the input's bursts (the panel above has them), so the capacity's moves fill the panel.
 */
final class ReleasesPanel {

    static final String SHAPED_STROKE = "stroke=\"#6baed6\" stroke-width=\"5\" stroke-opacity=\"0.6\"";
    private static final String DATABASE_STROKE = "stroke=\"#2ca02c\" stroke-width=\"2\" stroke-dasharray=\"6 3\"";
    private static final String LIMIT_STROKE = "stroke=\"#333\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"";
    private static final String BOUND_STROKE = "stroke=\"#bbb\" stroke-width=\"1.5\"";
    private static final String CAPACITY_STROKE = "stroke=\"#ff7f0e\" stroke-width=\"2\" stroke-dasharray=\"10 5\"";
    private static final String CAPACITY_BOUND_STROKE = "stroke=\"#fdd0a2\" stroke-width=\"1.5\"";
    private static final String ADAPTIVE_STROKE = "stroke=\"#9467bd\" stroke-width=\"2\"";
    static final String SLOWDOWN_FILL = "fill=\"#fff2a8\" fill-opacity=\"0.7\"";

    private ReleasesPanel() {
    }

    /** Draws the panel into {@code svg}. */
    static void draw(StringBuilder svg, ChartPanel panel, ChartSeries series, ChartSettings settings) {
        svg.append("<g class=\"panel-releases\">\n");
        if (settings.slowdown() != null) {
            ChartSettings.Slowdown slow = settings.slowdown();
            panel.band(svg, "slowdown", slow.fromSeconds(), slow.toSeconds(), SLOWDOWN_FILL);
        }
        panel.frame(svg, "records per second");
        ChartLegend legend = new ChartLegend();
        legend.line(SHAPED_STROKE, "shaped: released in each second").line(DATABASE_STROKE,
                "database: rows written per second (by write time: the transport bunches them)");
        if (settings.keysBind()) {
            panel.level(svg, "keys-rate", settings.keysRate(), LIMIT_STROKE, ChartPanel.LabelSide.BELOW);
            panel.level(svg, "keys-bound", settings.keysSecondLimit(), BOUND_STROKE, ChartPanel.LabelSide.ABOVE);
            legend.line(LIMIT_STROKE, "limit: " + settings.keys() + " keys at " + Rates.format(settings.ratePerKey())
                    + "/s = " + Rates.format(settings.keysRate()) + "/s");
            legend.line(BOUND_STROKE, "bound: rate + 1 per key in any second = " + settings.keysSecondLimit() + "/s");
        }
        if (settings.hasCapacity()) {
            panel.level(svg, "db-capacity", settings.dbCapacity(), CAPACITY_STROKE, ChartPanel.LabelSide.BELOW);
            legend.line(CAPACITY_STROKE, (settings.adaptive() || settings.keysBind() ? "" : "limit: ")
                    + dbCapacityLabel(settings.dbCapacity()) + (settings.adaptive() ? ", the loop's maximum" : ""));
        }
        if (!settings.keysBind()) {
            panel.level(svg, "capacity-bound", settings.capacitySecondLimit(), CAPACITY_BOUND_STROKE,
                    ChartPanel.LabelSide.ABOVE);
            legend.line(CAPACITY_BOUND_STROKE, "bound" + (settings.adaptive() ? " at the maximum" : "")
                    + ": capacity +5 %, one late release, one per task = " + settings.capacitySecondLimit() + "/s");
        }
        // Wide and pale, under the database's dashed line: where the two agree, both stay visible.
        panel.line(svg, "shaped", SHAPED_STROKE, series.released(), ChartSeries.Point::atSeconds,
                ChartSeries.Point::value, panel.values());
        panel.line(svg, "database", DATABASE_STROKE, series.rates(), RateTimeline.Rates::atSeconds,
                RateTimeline.Rates::db, panel.values());
        var adaptive = series.rates().stream().filter(r -> !Double.isNaN(r.capacity())).toList();
        if (!adaptive.isEmpty()) {
            panel.line(svg, "capacity-adaptive", ADAPTIVE_STROKE, adaptive, RateTimeline.Rates::atSeconds,
                    RateTimeline.Rates::capacity, panel.values());
            legend.line(ADAPTIVE_STROKE, HtmlChart.ADAPTIVE_LABEL + ": the limit in force");
        }
        if (settings.slowdown() != null) {
            legend.area(SLOWDOWN_FILL + " stroke=\"#e0c200\"", settings.slowdown().label());
        }
        legend.render(svg, panel.top());
        svg.append("</g>\n");
    }

    /** The capacity's name in the legend, the same in every chart: "DB capacity (40/s)". */
    static String dbCapacityLabel(double dbCapacity) {
        return "DB capacity (" + Rates.format(dbCapacity) + "/s)";
    }

    /** The panel's axis: made for its limit lines, or the data where that went above them. */
    static NiceScale scale(ChartSeries series, ChartSettings settings) {
        double dataMax = series.releasedPeak();
        for (RateTimeline.Rates r : series.rates()) {
            dataMax = Math.max(dataMax, r.db());
        }
        return settings.releasesScale(dataMax);
    }
}
