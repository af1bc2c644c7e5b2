package dev.shaper.demo.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A panel's legend, in the column right of the plots ({@link ChartPanel#LEGEND_LEFT}): each entry a swatch drawn as
 * its series is, and its label, wrapped to the column's width. Outside the plots, it covers no data, whatever the
 * data does.
 */
final class ChartLegend {

    /** How a series is drawn: a line, or a filled area or band. */
    enum Swatch { LINE, AREA }

    private record Entry(Swatch swatch, String style, String label) {
    }

    /**
     * Characters per line of a label: a label has about 200 px of the column, a character of 12 px sans-serif 6 to
     * 7 px (capitals, as in a reason's name, the wider).
     */
    private static final int LABEL_CHARS = 30;
    private static final int LINE_HEIGHT = 15;
    private static final int ENTRY_GAP = 5;
    private static final int SWATCH_WIDTH = 28;

    private final List<Entry> entries = new ArrayList<>();

    /** Adds an entry whose series is a line of {@code stroke}'s attributes. */
    ChartLegend line(String stroke, String label) {
        entries.add(new Entry(Swatch.LINE, stroke, label));
        return this;
    }

    /** Adds an entry whose series is an area or a band filled as {@code fill}'s attributes say. */
    ChartLegend area(String fill, String label) {
        entries.add(new Entry(Swatch.AREA, fill, label));
        return this;
    }

    /** Draws the legend from {@code top} down, in a box. */
    void render(StringBuilder svg, int top) {
        int x = ChartPanel.LEGEND_LEFT;
        StringBuilder rows = new StringBuilder();
        int y = top + 6;
        for (Entry entry : entries) {
            int middle = y + LINE_HEIGHT / 2;
            rows.append("<g class=\"legend-entry\">");
            if (entry.swatch() == Swatch.LINE) {
                rows.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>", x + 8,
                        middle, x + 8 + SWATCH_WIDTH, middle, entry.style()));
            } else {
                rows.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"10\" %s/>", x + 8,
                        middle - 5, SWATCH_WIDTH, entry.style()));
            }
            for (String line : wrap(entry.label())) {
                rows.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", x + 16 + SWATCH_WIDTH,
                        y + 11, HtmlChart.escape(line)));
                y += LINE_HEIGHT;
            }
            rows.append("</g>\n");
            y += ENTRY_GAP;
        }
        svg.append(String.format(Locale.ROOT, "<g class=\"legend\"><rect class=\"legend\" x=\"%d\" y=\"%d\""
                + " width=\"%d\" height=\"%d\" fill=\"white\" stroke=\"#ccc\"/>%n", x, top,
                ChartPanel.WIDTH - 4 - x, y - top + 2));
        svg.append(rows).append("</g>\n");
    }

    /** The label in lines of at most {@link #LABEL_CHARS}, broken between words (a longer word keeps its line). */
    static List<String> wrap(String label) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : label.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > LABEL_CHARS) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }
}
