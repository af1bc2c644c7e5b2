package dev.shaper.bench.lease;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The renewals of one phase, by every simulated instance: how many, how long they took, and the gaps between them. */
final class RenewalLog {

    /** The renewals of a phase. Times in milliseconds; percentiles NaN when there was none. */
    record Counts(long sent, long answered, long answeredInTime, long failed, double latencyP50, double latencyP99,
                  double gapP50, double gapP99, double gapMax) {
    }

    private long sent;
    private long answered;
    private long answeredInTime;
    private long failed;
    private final List<Double> latencies = new ArrayList<>();
    private final List<Double> gaps = new ArrayList<>();

    synchronized void sent() {
        sent++;
    }

    /**
     * @param latencyMs from the call to its answer
     * @param gapMs     since the instance's previous answered renewal, or negative for its first
     * @param inTime    whether it came within the timeout (a late one also counts as failed)
     */
    synchronized void answered(double latencyMs, double gapMs, boolean inTime) {
        answered++;
        if (inTime) {
            answeredInTime++;
        }
        latencies.add(latencyMs);
        if (gapMs >= 0) {
            gaps.add(gapMs);
        }
    }

    /** Failed or not answered within the timeout. */
    synchronized void failed() {
        failed++;
    }

    /** The phase's counts, and starts the next phase's. */
    synchronized Counts take() {
        Counts counts = new Counts(sent, answered, answeredInTime, failed, percentile(latencies, 0.50),
                percentile(latencies, 0.99), percentile(gaps, 0.50), percentile(gaps, 0.99), percentile(gaps, 1.0));
        sent = 0;
        answered = 0;
        answeredInTime = 0;
        failed = 0;
        latencies.clear();
        gaps.clear();
        return counts;
    }

    static double percentile(List<Double> values, double fraction) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(fraction * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
