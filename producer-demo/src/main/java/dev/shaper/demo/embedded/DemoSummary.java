package dev.shaper.demo.embedded;

import dev.shaper.demo.db.ReleaseWindows;
import dev.shaper.demo.db.WriterStats;
import dev.shaper.demo.traffic.Rates;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The end-of-run table of the demo: what was produced, shaped, rejected and written, the peaks, the
 * database's batch latency, the densest second of any key by release time, and the database's capacity with the
 * densest second of all keys against it.
 *
 * @param description   what ran (pattern, keys, shaper settings)
 * @param last          the final sample
 * @param timeline      all samples, for the peaks
 * @param writer        the DB writer's counters
 * @param densest       the key with most rows released within one second
 * @param perKeyLimit   what one key may receive in a second: its rate + 1
 * @param allKeys       the database's capacity and the densest second of all keys
 * @param stoppedEarly  true when Ctrl-C (or a failure) ended the run before the queues drained
 * @param capacity      how the closed loop's capacity went, or null when the capacity is fixed
 * @param slowdown      whether the database was slowed down, so that the recovery is timed from the slowdown's end
 * @param releasedPeak  the most records the shaper released in one of the run's seconds, as the chart counts them
 *                      (by release time: the samples' count of shaped records, read after each transaction's commit,
 *                      bunches them)
 */
record DemoSummary(String description, Sample last, RateTimeline timeline, WriterStats writer,
                   ReleaseWindows.Densest densest, long perKeyLimit, AllKeysSecond allKeys, boolean stoppedEarly,
                   CapacityCourse capacity, boolean slowdown, long releasedPeak) {

    /** The summary of a run whose capacity is fixed. */
    DemoSummary(String description, Sample last, RateTimeline timeline, WriterStats writer,
                ReleaseWindows.Densest densest, long perKeyLimit, AllKeysSecond allKeys, boolean stoppedEarly,
                long releasedPeak) {
        this(description, last, timeline, writer, densest, perKeyLimit, allKeys, stoppedEarly, null, false,
                releasedPeak);
    }

    /**
     * The database's capacity and the most rows of all keys the database received within one second, by release
     * time.
     *
     * @param dbCapacity the shaper's total rate, units/s (a demo record costs one); 0 for no cap
     * @param limit      what one second may hold under the capacity: 5 % above it and one late release at once (see
     *                   docs/capacity.md), rounded down, and one unit per task; unused without a capacity
     * @param densest    the most rows of all keys released within one second
     */
    record AllKeysSecond(double dbCapacity, long limit, int densest) {
    }

    /** The summary as text: one row a line, the names in a column. */
    String format() {
        Map<String, String> rows = rows();
        int width = rows.keySet().stream().mapToInt(String::length).max().orElse(0);
        StringBuilder table = new StringBuilder();
        rows.forEach((name, value) -> table.append(String.format(Locale.ROOT, "%-" + width + "s  %s%n", name, value)));
        return table.toString();
    }

    /** The summary's rows, name and value, in order. */
    Map<String, String> rows() {
        double seconds = last.elapsedMs() / 1000.0;
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("run", description + (stoppedEarly ? " (stopped before the queues drained)" : ""));
        rows.put("produced", last.produced() + rates(last.produced(), seconds, RateTimeline.Rates::input));
        rows.put("shaped", last.shaped() + String.format(Locale.ROOT, " (%.1f/s on average, peak %d/s by release"
                + " time)", average(last.shaped(), seconds), releasedPeak));
        rows.put("rejected", last.rejected() + (last.rejectedByReason().isEmpty() ? "" : " ("
                + last.rejectedByReason().entrySet().stream().map(e -> e.getKey() + " " + e.getValue()
                        + stages(e.getKey())).collect(Collectors.joining(", ")) + ")"));
        rows.put("still queued", Long.toString(last.queueDepth()));
        rows.put("accounted for", accountedFor());
        rows.put("database rows", last.dbRows() + rates(last.dbRows(), seconds, RateTimeline.Rates::db)
                + ", " + writer.rowsSkipped() + " replayed rows skipped");
        rows.put("db batch latency", String.format(Locale.ROOT, "p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms"
                        + " (%d batches)", ms(50), ms(95), ms(99), ms(100), writer.batches()));
        rows.put("densest key-second", densest.key() == null ? "no rows with a release time"
                : String.format(Locale.ROOT, "%s: %d rows released within one second (limit %d = rate + 1)%s",
                densest.key(), densest.count(), perKeyLimit, densest.count() <= perKeyLimit ? "" : "  EXCEEDED"));
        rows.put("db capacity", allKeys.dbCapacity() > 0 ? Rates.format(allKeys.dbCapacity())
                + "/s, the shaper's total rate over all keys" : "no cap (--total-rate 0)");
        rows.put("densest second", allKeys.densest() + " rows of all keys released within one second"
                + (allKeys.dbCapacity() > 0 ? " (limit " + allKeys.limit() + ": capacity +5 %, one late release,"
                + " one per task)" + (allKeys.densest() <= allKeys.limit() ? "" : "  EXCEEDED") : ""));
        if (capacity != null) {
            rows.put("lowest capacity", capacity.lowestRow());
            rows.put("capacity fell", capacity.firstFellRow());
            rows.put("capacity recovered", capacity.recoveryRow(slowdown));
        }
        return rows;
    }

    /** How many of a reason's rejections were at arrival and how many while queued, for a reason given at both. */
    private String stages(String reason) {
        long whileQueued = last.rejectedWhileQueued().getOrDefault(reason, 0L);
        return RejectionStage.bothPossible(reason) || whileQueued > 0 ? ": " + last.rejectedAtArrival(reason)
                + " refused at arrival, " + whileQueued + " expired or cut while queued" : "";
    }

    /** Whether every produced record came out shaped or rejected, and every shaped one reached the database. */
    private String accountedFor() {
        long written = last.dbRows() + writer.rowsSkipped();
        if (last.queueDepth() == 0 && written >= last.shaped()) {
            return "every record: " + last.produced() + " produced = " + last.shaped() + " shaped + " + last.rejected()
                    + " rejected, all shaped ones in the database";
        }
        return "NOT ALL: " + last.queueDepth() + " neither shaped nor rejected, " + Math.max(0, last.shaped() - written)
                + " shaped but not in the database";
    }

    private double ms(double percentile) {
        return writer.batchLatency().percentile(percentile) / 1000.0;
    }

    private String rates(long count, double seconds, ToDoubleFunction<RateTimeline.Rates> rate) {
        double peak = timeline.rates().stream().mapToDouble(rate).max().orElse(0);
        return String.format(Locale.ROOT, " (%.1f/s on average, peak %.0f/s)", average(count, seconds), peak);
    }

    private static double average(long count, double seconds) {
        return seconds > 0 ? count / seconds : 0.0;
    }
}
