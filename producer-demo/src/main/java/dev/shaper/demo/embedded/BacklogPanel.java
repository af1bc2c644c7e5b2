package dev.shaper.demo.embedded;

import dev.shaper.RejectReason;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The chart's lower panel: what waits and what is refused. The queue depth is an area on the left axis; the
 * rejections per second are lines on the right axis, one per reason and {@link RejectionStage}: a record refused
 * when it arrived and one taken out of its queue later (expired, or cut at a fall of the capacity) tell different
 * stories, though both may be {@code DELAY_EXCEEDED}.
 */
final class BacklogPanel {

    private static final String QUEUE_FILL = "fill=\"#bdbdbd\" fill-opacity=\"0.6\" stroke=\"#969696\"";
    /** The colour of each reason refused at arrival, the same in every chart. */
    private static final Map<RejectReason, String> REASON_COLORS = Map.ofEntries(
            Map.entry(RejectReason.QUEUE_FULL, "#e377c2"), Map.entry(RejectReason.DELAY_EXCEEDED, "#8c564b"),
            Map.entry(RejectReason.RATE_LIMITED, "#bcbd22"), Map.entry(RejectReason.INVALID_KEY, "#17becf"),
            Map.entry(RejectReason.INVALID_ADMISSION_KEY, "#7f7f7f"), Map.entry(RejectReason.INVALID_COST, "#393b79"),
            Map.entry(RejectReason.RECORD_TOO_LARGE, "#637939"), Map.entry(RejectReason.INVALID_TIMESTAMP, "#843c39"),
            Map.entry(RejectReason.DEADLINE_EXCEEDED, "#6a51a3"));
    /** The colour of each reason a queued record may get, where it did: apart from its colour at arrival. */
    private static final Map<RejectReason, String> WHILE_QUEUED_COLORS = Map.of(
            RejectReason.DELAY_EXCEEDED, "#e6550d", RejectReason.DEADLINE_EXCEEDED, "#de2d26",
            RejectReason.INVALID_TIMESTAMP, "#fd8d3c", RejectReason.RECORD_TOO_LARGE, "#31a354");

    private BacklogPanel() {
    }

    /** Draws the panel into {@code svg}, its rejections on {@code rejections}, the right axis. */
    static void draw(StringBuilder svg, ChartPanel panel, NiceScale rejections, ChartSeries series,
                     ChartSettings settings) {
        svg.append("<g class=\"panel-backlog\">\n");
        if (settings.slowdown() != null) {
            panel.band(svg, "slowdown", settings.slowdown().fromSeconds(), settings.slowdown().toSeconds(),
                    ReleasesPanel.SLOWDOWN_FILL);
        }
        panel.frame(svg, "records waiting");
        panel.rightAxis(svg, rejections, "rejected per second");
        panel.area(svg, "queue", QUEUE_FILL, series.backlog(), RateTimeline.Backlog::atSeconds,
                RateTimeline.Backlog::queued);
        ChartLegend legend = new ChartLegend().area(QUEUE_FILL, "queue: records waiting (left)");
        for (String reason : reasons(series)) {
            for (RejectionStage stage : RejectionStage.values()) {
                // A reason given at both stages has both lines, the one at 0 too: "none expired" is news.
                if (stage == RejectionStage.WHILE_QUEUED && !RejectionStage.bothPossible(reason)) {
                    continue;
                }
                String stroke = stroke(reason, stage);
                panel.line(svg, "rejected\" data-reason=\"" + HtmlChart.escape(reason) + "\" data-stage=\""
                        + stage.name(), stroke, series.backlog(), RateTimeline.Backlog::atSeconds,
                        b -> b.rejected(reason, stage), rejections);
                legend.line(stroke, reason + (stage == RejectionStage.AT_ARRIVAL ? " at arrival (right)"
                        : " while queued: expired or cut (right)"));
            }
        }
        legend.render(svg, panel.top());
        svg.append("</g>\n");
    }

    /** The right axis: a second of the whole input refused, at worst, or the data where it went above. */
    static NiceScale rejectionsScale(ChartSeries series, ChartSettings settings) {
        double dataMax = 0;
        for (RateTimeline.Backlog b : series.backlog()) {
            for (double rate : b.rejectedAtArrival().values()) {
                dataMax = Math.max(dataMax, rate);
            }
            for (double rate : b.rejectedWhileQueued().values()) {
                dataMax = Math.max(dataMax, rate);
            }
        }
        return settings.rejectionsScale(dataMax);
    }

    /** The left axis: what can wait within the longest wait, or the data where it went above. */
    static NiceScale queueScale(ChartSeries series, ChartSettings settings) {
        return settings.queueScale(series.backlog().stream().mapToDouble(RateTimeline.Backlog::queued).max()
                .orElse(0));
    }

    /** The reasons that rejected anything, in the order of {@link RejectReason}, then any this build does not know. */
    private static Set<String> reasons(ChartSeries series) {
        Set<String> rejectedAny = new LinkedHashSet<>();
        for (RateTimeline.Backlog b : series.backlog()) {
            b.rejectedAtArrival().forEach((reason, rate) -> addIfPositive(rejectedAny, reason, rate));
            b.rejectedWhileQueued().forEach((reason, rate) -> addIfPositive(rejectedAny, reason, rate));
        }
        Set<String> ordered = new LinkedHashSet<>();
        for (RejectReason known : RejectReason.values()) {
            if (rejectedAny.contains(known.name())) {
                ordered.add(known.name());
            }
        }
        ordered.addAll(rejectedAny);
        return ordered;
    }

    private static void addIfPositive(Set<String> reasons, String reason, double rate) {
        if (rate > 0) {
            reasons.add(reason);
        }
    }

    private static String stroke(String reason, RejectionStage stage) {
        RejectReason known = known(reason);
        if (stage == RejectionStage.WHILE_QUEUED) {
            return "stroke=\"" + (known == null ? "#000000" : WHILE_QUEUED_COLORS.getOrDefault(known, "#000000"))
                    + "\" stroke-width=\"2\" stroke-dasharray=\"5 2\"";
        }
        return "stroke=\"" + (known == null ? "#000000" : REASON_COLORS.getOrDefault(known, "#000000"))
                + "\" stroke-width=\"2\"";
    }

    private static RejectReason known(String reason) {
        for (RejectReason r : RejectReason.values()) {
            if (r.name().equals(reason)) {
                return r;
            }
        }
        return null;
    }
}
