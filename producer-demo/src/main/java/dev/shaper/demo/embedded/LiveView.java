package dev.shaper.demo.embedded;

import java.io.PrintStream;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The demo's console view: one line per sample (about once a second) with the rates since the previous
 * sample, the queue depth and the rejections so far by reason. Plain lines rather than a redrawn screen, so
 * the view also reads well when the output is piped into a file or a CI log.
 */
final class LiveView {

    private static final String FORMAT = "%7s %9s %9s %9s %11s %8s  %s%n";

    private final PrintStream out;
    private Sample previous;

    LiveView(PrintStream out) {
        this.out = out;
    }

    void printHeader() {
        out.printf(Locale.ROOT, FORMAT, "time", "input/s", "shaped/s", "db rows/s", "rejected/s", "queue",
                "rejected so far, by reason");
    }

    void show(Sample sample) {
        Sample from = previous == null ? RateTimeline.START : previous;
        RateTimeline.Rates rates = RateTimeline.between(from, sample);
        String reasons = sample.rejectedByReason().isEmpty() ? "-" : sample.rejectedByReason().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        out.printf(Locale.ROOT, FORMAT, String.format(Locale.ROOT, "%.0fs", rates.atSeconds()),
                whole(rates.input()), whole(rates.shaped()), whole(rates.db()), whole(rates.rejected()),
                Long.toString(sample.queueDepth()), reasons);
        previous = sample;
    }

    private static String whole(double rate) {
        return String.format(Locale.ROOT, "%.0f", rate);
    }
}
