package dev.shaper.demo.embedded;

import dev.shaper.demo.traffic.Rates;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * One panel of the demo's chart: a plot area over the time axis all panels share, its title above it, its value axis
 * on the left and, if it has one, a second on the right. Every panel has the same left and right edges, so a moment
 * lies at the same x in each; the column right of the plots is the legends', so that no legend covers data.
 *
 * @param title  what the panel shows, above it
 * @param top    the plot area's upper edge, in the SVG's units
 * @param height the plot area's height
 * @param time   the time axis, seconds since the producer started
 * @param values the left axis
 */
record ChartPanel(String title, int top, int height, NiceScale time, NiceScale values) {

    /** The SVG's width: it fits a window of 1400 px with room to spare, and scales down below that. */
    static final int WIDTH = 1200;
    /** The plot areas' left edge: room for the left axis' labels and its title. */
    static final int PLOT_LEFT = 80;
    /** The plot areas' right edge. */
    static final int PLOT_RIGHT = 880;
    /** Where the legends' column begins: right of the plots and of a right axis' labels and title. */
    static final int LEGEND_LEFT = PLOT_RIGHT + 72;

    int bottom() {
        return top + height;
    }

    double x(double seconds) {
        return PLOT_LEFT + seconds / time.max() * (PLOT_RIGHT - PLOT_LEFT);
    }

    double y(double value) {
        return y(value, values);
    }

    /** Where {@code value} lies on {@code scale}, an axis of this panel. */
    double y(double value, NiceScale scale) {
        return bottom() - value / scale.max() * height;
    }

    /** The title, the plot area's border, the grid and the left axis with its ticks, and the time ticks under it. */
    void frame(StringBuilder svg, String valuesLabel) {
        svg.append(String.format(Locale.ROOT, "<text class=\"panel-title\" x=\"%d\" y=\"%d\" font-size=\"14\""
                + " font-weight=\"bold\">%s</text>%n", PLOT_LEFT, top - 10, HtmlChart.escape(title)));
        svg.append(String.format(Locale.ROOT, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                + " fill=\"none\" stroke=\"#999\"/>%n", PLOT_LEFT, top, PLOT_RIGHT - PLOT_LEFT, height));
        for (double value : values.ticks()) {
            double yy = y(value);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
                    + " stroke=\"#e5e5e5\"/><text class=\"tick-left\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s"
                    + "</text>%n",
                    PLOT_LEFT, yy, PLOT_RIGHT, yy, PLOT_LEFT - 6, yy + 4, label(value)));
        }
        for (double t : time.ticks()) {
            double xx = x(t);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                    + " stroke=\"#f0f0f0\"/><text class=\"tick-time\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s s"
                    + "</text>%n",
                    xx, top, xx, bottom(), xx, bottom() + 16, label(t)));
        }
        int middle = top + height / 2;
        svg.append(String.format(Locale.ROOT, "<text x=\"20\" y=\"%d\" transform=\"rotate(-90 20 %d)\""
                + " text-anchor=\"middle\">%s</text>%n", middle, middle, HtmlChart.escape(valuesLabel)));
    }

    /** A second value axis on the right, with its own ticks: a quantity of another unit in the same panel. */
    void rightAxis(StringBuilder svg, NiceScale scale, String label) {
        for (double value : scale.ticks()) {
            svg.append(String.format(Locale.ROOT, "<text class=\"tick-right\" x=\"%d\" y=\"%.1f\">%s</text>%n",
                    PLOT_RIGHT + 6, y(value, scale) + 4, label(value)));
        }
        int x = PLOT_RIGHT + 58;
        int middle = top + height / 2;
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" transform=\"rotate(90 %d %d)\""
                + " text-anchor=\"middle\">%s</text>%n", x, middle, x, middle, HtmlChart.escape(label)));
    }

    /** A band over the whole height from {@code from} to {@code to} seconds, within the time axis: a period. */
    void band(StringBuilder svg, String cssClass, double from, double to, String fill) {
        double x1 = x(Math.max(0, from));
        double x2 = x(Math.min(time.max(), to));
        if (x2 > x1) {
            svg.append(String.format(Locale.ROOT, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                    + " %s/>%n", cssClass, x1, top, x2 - x1, height, fill));
        }
    }

    /** Where a level's value is written right of the plot: above its line, or below it for one just under another. */
    enum LabelSide { ABOVE, BELOW }

    /** A level across the panel, a limit or a bound, and its value right of the plot, where no axis is. */
    void level(StringBuilder svg, String cssClass, double value, String stroke, LabelSide side) {
        double yy = y(value);
        svg.append(String.format(Locale.ROOT, "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" %s/>"
                + "<text class=\"level-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">%s/s</text>%n",
                cssClass, PLOT_LEFT, yy, PLOT_RIGHT, yy, stroke, PLOT_RIGHT + 5,
                side == LabelSide.ABOVE ? yy - 2 : yy + 10, label(value)));
    }

    /** A line through {@code points}, placed on {@code scale}. */
    <T> void line(StringBuilder svg, String cssClass, String stroke, List<T> points, ToDoubleFunction<T> atSeconds,
                  ToDoubleFunction<T> value, NiceScale scale) {
        StringBuilder line = new StringBuilder("<polyline class=\"" + cssClass + "\" fill=\"none\" " + stroke
                + " points=\"");
        for (T p : points) {
            line.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(atSeconds.applyAsDouble(p)),
                    y(value.applyAsDouble(p), scale)));
        }
        svg.append(line.append("\"/>\n"));
    }

    /** An area from the time axis up to {@code points}, on the left axis. */
    <T> void area(StringBuilder svg, String cssClass, String fill, List<T> points, ToDoubleFunction<T> atSeconds,
                  ToDoubleFunction<T> value) {
        if (points.isEmpty()) {
            return;
        }
        StringBuilder polygon = new StringBuilder(String.format(Locale.ROOT, "%.1f,%.1f ",
                x(atSeconds.applyAsDouble(points.get(0))), y(0)));
        for (T p : points) {
            polygon.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(atSeconds.applyAsDouble(p)),
                    y(Math.max(0, value.applyAsDouble(p)))));
        }
        T last = points.get(points.size() - 1);
        polygon.append(String.format(Locale.ROOT, "%.1f,%.1f", x(atSeconds.applyAsDouble(last)), y(0)));
        svg.append("<polygon class=\"").append(cssClass).append("\" ").append(fill).append(" points=\"")
                .append(polygon).append("\"/>\n");
    }

    private static String label(double value) {
        return Rates.format(value);
    }
}
