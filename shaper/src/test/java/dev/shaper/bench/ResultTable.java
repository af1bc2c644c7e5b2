package dev.shaper.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Formats the measurements of a run as a plain-text table, followed by the shaper / pass-through ratios. */
final class ResultTable {

    private ResultTable() {
    }

    static String format(List<String> header, List<Measurement> measurements) {
        StringBuilder out = new StringBuilder();
        header.forEach(line -> out.append(line).append('\n'));
        out.append('\n');
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"guarantee", "scenario", "app", "records", "start->1st out s", "start->input done s", "start->last s",
            "rec/s", "rec/s after 1st", "stream-thr CPU us/rec", "app-thr CPU us/rec", "queued", "wait ms mean/p50/p99/max",
            "rejected", "load avg", "status"});
        for (Measurement m : measurements) {
            rows.add(new String[] {m.guarantee(), m.scenario().label(), m.app().label(), Long.toString(m.records()),
                fixed(m.firstOutputSeconds(), 2), fixed(m.inputDoneSeconds(), 2), fixed(m.totalSeconds(), 2), fixed(m.recordsPerSecond(), 0),
                fixed(m.steadyRecordsPerSecond(), 0), fixed(m.streamThreadCpuMicrosPerRecord(), 1),
                fixed(m.appThreadsCpuSeconds() * 1e6 / m.records(), 1),
                m.app().shapes() ? fixed(100 * m.queuedFraction(), 2) + " %" : "-",
                m.app().shapes() ? fixed(m.queue().meanMs(), 0) + "/" + m.queue().p50Ms() + "/" + m.queue().p99Ms()
                        + "/" + m.queue().maxMs() : "-",
                m.app().shapes() ? Long.toString(m.rejected()) : "-", fixed(m.loadAverage(), 1),
                status(m)});
        }
        appendAligned(out, rows);

        out.append("\nshaper / pass-through (same guarantee, scenario and input layout):\n");
        List<String[]> ratios = new ArrayList<>();
        ratios.add(new String[] {"guarantee", "scenario", "shaper rec/s", "pass-through rec/s", "ratio",
            "ratio after 1st out", "CPU us/rec ratio", "queued"});
        for (Measurement shaper : measurements) {
            if (!shaper.app().shapes()) {
                continue;
            }
            Optional<Measurement> base = measurements.stream()
                    .filter(m -> !m.app().shapes() && m.guarantee().equals(shaper.guarantee())
                            && m.scenario() == shaper.scenario())
                    .findFirst();
            if (base.isEmpty()) {
                continue;
            }
            Measurement pass = base.get();
            ratios.add(new String[] {shaper.guarantee(), shaper.scenario().label(),
                fixed(shaper.recordsPerSecond(), 0), fixed(pass.recordsPerSecond(), 0),
                fixed(shaper.recordsPerSecond() / pass.recordsPerSecond(), 3),
                fixed(shaper.steadyRecordsPerSecond() / pass.steadyRecordsPerSecond(), 3),
                fixed(shaper.streamThreadCpuMicrosPerRecord() / pass.streamThreadCpuMicrosPerRecord(), 2),
                fixed(100 * shaper.queuedFraction(), 2) + " %"});
        }
        appendAligned(out, ratios);
        out.append("""

                rec/s = records / (KafkaStreams.start() -> last output record committed, seen by a read_committed
                consumer). "after 1st" leaves out the start-up (group join, task and store initialisation).
                input done = the app's committed input offsets cover all the input (the shaper may still hold
                queued records then; "last" minus "input done" is the drain's tail).
                queued = shaped records whose shaper.queued.ms header is > 0 (a lower bound of those that waited).
                stream-thr CPU = CPU time of the app's StreamThread(s) per record (Java threads only; RocksDB
                background threads not included): less sensitive to other load on the machine than rec/s.
                app-thr CPU = the same for all Java threads named after the app (adds producer/consumer I/O threads).
                load avg = the machine's 1-minute load average at the end of the measurement.
                status: output + rejected records counted until the app closed; more than the input means duplicates.
                """);
        return out.toString();
    }

    /** "ok" when every input record came out exactly once (output + rejected), else what differs. */
    private static String status(Measurement m) {
        if (!m.ok()) {
            return "FAILED: " + m.error();
        }
        long out = m.output() + m.rejected();
        return out == m.records() ? "ok" : "ok, but " + out + " records out (duplicates)";
    }

    private static void appendAligned(StringBuilder out, List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(i == 0 ? "" : " | ").append(String.format("%-" + widths[i] + "s", row[i]));
            }
            out.append(line.toString().stripTrailing()).append('\n');
            if (r == 0) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < widths.length; i++) {
                    rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
                }
                out.append(rule).append('\n');
            }
        }
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "n/a"
                : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
