package dev.shaper.demo.embedded;

import dev.shaper.demo.traffic.Rates;
import java.io.PrintStream;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The demo's console view: one line per sample (about once a second) with the rates since the previous
 * sample, the queue depth and the rejections so far by reason; with a database capacity, also the database's
 * rate as a share of it, under a heading that names the capacity; with the closed loop, also the capacity it applies
 * now. Plain lines rather than a redrawn screen, so
 * the view also reads well when the output is piped into a file or a CI log.
 */
final class LiveView {

    private static final String FORMAT = "%7s %9s %9s %9s %11s %8s  %s%n";
    private static final String FORMAT_WITH_CAPACITY = "%7s %9s %9s %9s %10s %11s %8s  %s%n";
    private static final String FORMAT_ADAPTIVE = "%7s %9s %9s %9s %10s %11s %11s %8s  %s%n";

    private final PrintStream out;
    private final double dbCapacity;
    private final boolean adaptive;
    private Sample previous;

    /** @param dbCapacity the database's capacity, units/s (a demo record costs one); 0 for none */
    LiveView(PrintStream out, double dbCapacity) {
        this(out, dbCapacity, false);
    }

    /**
     * @param dbCapacity the database's capacity, units/s; with {@code adaptive} the closed loop's maximum
     * @param adaptive   whether the closed loop moves the capacity, shown as a column of its own
     */
    LiveView(PrintStream out, double dbCapacity, boolean adaptive) {
        this.out = out;
        this.dbCapacity = dbCapacity;
        this.adaptive = adaptive && dbCapacity > 0;
    }

    void printHeader() {
        if (adaptive) {
            out.printf(Locale.ROOT, FORMAT_ADAPTIVE, "time", "input/s", "shaped/s", "db rows/s",
                    "of " + Rates.format(dbCapacity) + "/s", "capacity/s", "rejected/s", "queue",
                    "rejected so far, by reason");
        } else if (dbCapacity > 0) {
            out.printf(Locale.ROOT, FORMAT_WITH_CAPACITY, "time", "input/s", "shaped/s", "db rows/s",
                    "of " + Rates.format(dbCapacity) + "/s", "rejected/s", "queue", "rejected so far, by reason");
        } else {
            out.printf(Locale.ROOT, FORMAT, "time", "input/s", "shaped/s", "db rows/s", "rejected/s", "queue",
                    "rejected so far, by reason");
        }
    }

    void show(Sample sample) {
        Sample from = previous == null ? RateTimeline.START : previous;
        RateTimeline.Rates rates = RateTimeline.between(from, sample);
        String reasons = sample.rejectedByReason().isEmpty() ? "-" : sample.rejectedByReason().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        String time = String.format(Locale.ROOT, "%.0fs", rates.atSeconds());
        if (adaptive) {
            out.printf(Locale.ROOT, FORMAT_ADAPTIVE, time, whole(rates.input()), whole(rates.shaped()),
                    whole(rates.db()), whole(100 * rates.db() / dbCapacity) + "%",
                    sample.hasCapacity() ? whole(sample.capacity()) : "-", whole(rates.rejected()),
                    Long.toString(sample.queueDepth()), reasons);
        } else if (dbCapacity > 0) {
            out.printf(Locale.ROOT, FORMAT_WITH_CAPACITY, time, whole(rates.input()), whole(rates.shaped()),
                    whole(rates.db()), whole(100 * rates.db() / dbCapacity) + "%", whole(rates.rejected()),
                    Long.toString(sample.queueDepth()), reasons);
        } else {
            out.printf(Locale.ROOT, FORMAT, time, whole(rates.input()), whole(rates.shaped()), whole(rates.db()),
                    whole(rates.rejected()), Long.toString(sample.queueDepth()), reasons);
        }
        previous = sample;
    }

    private static String whole(double rate) {
        return String.format(Locale.ROOT, "%.0f", rate);
    }
}
