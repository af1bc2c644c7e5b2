package dev.shaper.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
            "rec/s", "rec/s after 1st", "stream-thr CPU us/rec", "app-thr CPU us/rec", "changelog B/rec", "queued",
            "wait ms mean/p50/p99/max",
            "rejected", "JIT s", "load avg", "status"});
        for (Measurement m : measurements) {
            rows.add(new String[] {m.guarantee(), m.scenario().label(), m.app().label(), Long.toString(m.records()),
                fixed(m.firstOutputSeconds(), 2), fixed(m.inputDoneSeconds(), 2), fixed(m.totalSeconds(), 2), fixed(m.recordsPerSecond(), 0),
                fixed(m.steadyRecordsPerSecond(), 0), fixed(m.streamThreadCpuMicrosPerRecord(), 1),
                fixed(m.appThreadsCpuSeconds() * 1e6 / m.records(), 1),
                m.app().hasStore() ? fixed(m.changelogBytesPerRecord(), 0) : "-",
                m.app().shapes() ? fixed(100 * m.queuedFraction(), 2) + " %" : "-",
                m.app().shapes() ? fixed(m.queue().meanMs(), 0) + "/" + m.queue().p50Ms() + "/" + m.queue().p99Ms()
                        + "/" + m.queue().maxMs() : "-",
                m.app().shapes() ? Long.toString(m.rejected()) : "-", fixed(m.jitSeconds(), 2),
                fixed(m.loadAverage(), 1),
                status(m)});
        }
        appendAligned(out, rows);

        out.append("\nthe apps / pass-through and / shaper (same guarantee, scenario and input layout; medians over the"
                + " repetitions, which ran interleaved):\n");
        List<String[]> ratios = new ArrayList<>();
        ratios.add(new String[] {"guarantee", "scenario", "app", "runs", "app rec/s", "pass-through rec/s", "ratio",
            "ratio range", "ratio after 1st", "CPU us/rec ratio", "queued", "app / shaper"});
        for (Measurement shaper : firstOfEachGroup(measurements)) {
            if (shaper.app() == BenchApp.PASS_THROUGH) {
                continue;
            }
            List<Measurement> runs = group(measurements, shaper, shaper.app());
            // Without the pass-through in the run (an A/B of two shaper apps, say) only "app / shaper" is known.
            List<Measurement> passes = group(measurements, shaper, BenchApp.PASS_THROUGH);
            double app = median(runs.stream().mapToDouble(Measurement::recordsPerSecond).toArray());
            double pass = median(passes.stream().mapToDouble(Measurement::recordsPerSecond).toArray());
            double steady = median(runs.stream().mapToDouble(Measurement::steadyRecordsPerSecond).toArray())
                    / median(passes.stream().mapToDouble(Measurement::steadyRecordsPerSecond).toArray());
            double appCpu = median(runs.stream().mapToDouble(Measurement::streamThreadCpuMicrosPerRecord).toArray());
            double passCpu = median(passes.stream().mapToDouble(Measurement::streamThreadCpuMicrosPerRecord)
                    .toArray());
            double lowest = passes.isEmpty() ? Double.NaN : Double.MAX_VALUE;
            double highest = passes.isEmpty() ? Double.NaN : 0;
            for (int i = 0; i < Math.min(runs.size(), passes.size()); i++) {
                double r = runs.get(i).recordsPerSecond() / passes.get(i).recordsPerSecond();
                lowest = Math.min(lowest, r);
                highest = Math.max(highest, r);
            }
            List<Measurement> plain = group(measurements, shaper, BenchApp.SHAPER);
            String vsShaper = shaper.app() == BenchApp.SHAPER || plain.isEmpty() ? "-"
                    : fixed(app / median(plain.stream().mapToDouble(Measurement::recordsPerSecond).toArray()), 3);
            ratios.add(new String[] {shaper.guarantee(), shaper.scenario().label(), shaper.app().label(),
                Integer.toString(runs.size()), fixed(app, 0), fixed(pass, 0), fixed(app / pass, 3),
                fixed(lowest, 3) + " - " + fixed(highest, 3), fixed(steady, 3), fixed(appCpu / passCpu, 2),
                shaper.app().shapes() ? fixed(100 * shaper.queuedFraction(), 2) + " %" : "-", vsShaper});
        }
        appendAligned(out, ratios);
        out.append("""

                rec/s = records / (KafkaStreams.start() -> last output record committed, seen by a read_committed
                consumer). "after 1st" leaves out the start-up (group join, task and store initialisation; for the
                shaper also creating its changelog topics, which a deployed shaper does once); "ratio after 1st"
                compares those steady rates. The targets are quoted on "ratio", start-up included.
                input done = the app's committed input offsets cover all the input (the shaper may still hold
                queued records then; "last" minus "input done" is the drain's tail).
                queued = shaped records whose shaper.queued.ms header is > 0 (a lower bound of those that waited);
                it and the wait figures are read from one shaped record in 16.
                stream-thr CPU = CPU time of the app's StreamThread(s) per record (Java threads only; RocksDB
                background threads not included): less sensitive to other load on the machine than rec/s.
                app-thr CPU = the same for all Java threads named after the app (adds producer/consumer I/O threads).
                changelog B/rec = bytes the app's producer sent to its changelog topics per input record (the
                producer's byte-total per topic: batches, so record overhead included).
                JIT s = time the JVM's JIT compilers spent compiling during the measurement (CPU the apps and
                the broker did not get); the warm-up repeats until it is small.
                load avg = the machine's 1-minute load average at the end of the measurement.
                status: output + rejected records counted until the app closed; more than the input means duplicates.
                """);
        return out.toString();
    }

    /** One measurement per (guarantee, scenario, app), in the order of the run. */
    private static List<Measurement> firstOfEachGroup(List<Measurement> measurements) {
        List<Measurement> first = new ArrayList<>();
        for (Measurement m : measurements) {
            if (first.stream().noneMatch(f -> f.app() == m.app() && f.scenario() == m.scenario()
                    && f.guarantee().equals(m.guarantee()))) {
                first.add(m);
            }
        }
        return first;
    }

    /** The successful runs of {@code app} with the guarantee and scenario of {@code like}, in run order. */
    private static List<Measurement> group(List<Measurement> measurements, Measurement like, BenchApp app) {
        return measurements.stream().filter(m -> m.ok() && m.app() == app && m.scenario() == like.scenario()
                && m.guarantee().equals(like.guarantee())).toList();
    }

    private static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
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
