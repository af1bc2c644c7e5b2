package dev.shaper.internals.capacity.adaptive;

import dev.shaper.feedback.FeedbackReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects the writers' reports between two decisions and combines them into one {@link FeedbackSignal} per
 * decision. Reports are placed by the end of their window ({@code atMs}, the writer's clock):
 * <ul>
 *   <li>A report counts once. Per writer (the record key), a report that ends no later than one already accepted from
 *       that writer is a duplicate (a producer's retry, a re-read) or out of order, and is ignored.</li>
 *   <li>A decision takes every report added since the previous one, so a report on its way during a decision counts in
 *       the next. One that ended a feedback timeout or more before the decision is late, describes a database that
 *       may have changed since, and is ignored (its writer logged once: its clock may be behind).</li>
 *   <li>Writes and errors add up over all reports taken. Several reports of one writer (it reports more often than
 *       decisions are made) count as one writer.</li>
 *   <li>The p99 is the largest of the writers' p99s, among reports that attempted something.</li>
 *   <li>Feedback is missing when no report taken so far ended within the timeout.</li>
 * </ul>
 * Thread-safe: the feedback listener adds from its thread while decisions take from another.
 */
public final class FeedbackAggregator {

    private static final Logger LOG = LoggerFactory.getLogger(FeedbackAggregator.class);
    /** Writers whose late reports are logged at most; bounds the memory of writer ids that change every record. */
    static final int MAX_WRITERS_LOGGED = 10_000;

    private final long timeoutMs;
    /** Reports added since the last decision, by writer, in the order they came. */
    private final Map<String, List<FeedbackReport>> pending = new HashMap<>();
    /** By writer, the end of its newest report accepted: what is not newer is a duplicate. */
    private final Map<String, Long> newestAtMs = new HashMap<>();
    private final Set<String> lateWritersLogged = new HashSet<>();
    /** The end of the newest report taken by a decision. */
    private long freshestTakenAtMs = Long.MIN_VALUE;
    /** The end of the newest report accepted from any writer; null before the first. */
    private Long newestAcceptedAtMs;
    private long accepted;
    private long duplicates;
    private long late;

    /** @param timeoutMs {@code shaper.capacity.feedback.timeout.ms} */
    public FeedbackAggregator(long timeoutMs) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("the feedback timeout must be > 0 ms, got " + timeoutMs);
        }
        this.timeoutMs = timeoutMs;
    }

    /**
     * A writer's report, for the next decision.
     *
     * @return false when it is a duplicate, or older than one already accepted from the writer, and is ignored
     */
    public synchronized boolean add(String writerId, FeedbackReport report) {
        Long newest = newestAtMs.get(writerId);
        if (newest != null && report.atMs() <= newest) {
            duplicates++;
            return false;
        }
        newestAtMs.put(writerId, report.atMs());
        pending.computeIfAbsent(writerId, w -> new ArrayList<>(2)).add(report);
        newestAcceptedAtMs = newestAcceptedAtMs == null ? report.atMs() : Math.max(newestAcceptedAtMs, report.atMs());
        accepted++;
        return true;
    }

    /** The signal of a decision at {@code nowMs}: the reports added since the previous one, combined. */
    public synchronized FeedbackSignal take(long nowMs) {
        long lateUpToMs = nowMs - timeoutMs;
        int writers = 0;
        long writes = 0;
        long errors = 0;
        double p99 = Double.NaN;
        for (Map.Entry<String, List<FeedbackReport>> writer : pending.entrySet()) {
            boolean counted = false;
            for (FeedbackReport report : writer.getValue()) {
                if (report.atMs() <= lateUpToMs) {
                    late++;
                    logLate(writer.getKey(), report, nowMs);
                    continue;
                }
                counted = true;
                writes += report.writes();
                errors += report.errors();
                // The union's p99 is never above the largest writer's p99, and percentiles alone prove no smaller
                // value; a writer that attempted nothing has no latency to count.
                if (report.attempts() > 0 && report.latencyP99Ms() != null
                        && (Double.isNaN(p99) || report.latencyP99Ms() > p99)) {
                    p99 = report.latencyP99Ms();
                }
                freshestTakenAtMs = Math.max(freshestTakenAtMs, report.atMs());
            }
            if (counted) {
                writers++;
            }
        }
        pending.clear();
        // A report this old is late whatever came before it, so its writer's newest end is no longer needed.
        newestAtMs.values().removeIf(atMs -> atMs <= lateUpToMs);
        if (writers > 0) {
            return FeedbackSignal.of(writers, writes, errors, p99);
        }
        return freshestTakenAtMs > lateUpToMs ? FeedbackSignal.nothingNew() : FeedbackSignal.noFeedback();
    }

    private void logLate(String writerId, FeedbackReport report, long nowMs) {
        if (lateWritersLogged.size() < MAX_WRITERS_LOGGED && lateWritersLogged.add(writerId)) {
            LOG.warn("Feedback: a report of writer {} ended {} ms before the decision, more than the feedback timeout"
                    + " ({} ms), and is ignored as late; if this repeats, its clock may be behind the shaper's. Later"
                    + " late reports of this writer are counted, not logged", writerId, nowMs - report.atMs(),
                    timeoutMs);
        }
    }

    /** The end of the newest report accepted, epoch milliseconds by its writer's clock; null before the first. */
    public synchronized Long newestReportAtMs() {
        return newestAcceptedAtMs;
    }

    /** Reports accepted so far (neither duplicate nor out of order), late ones included. */
    public synchronized long acceptedReports() {
        return accepted;
    }

    /** Reports ignored so far as duplicates or out of order. */
    public synchronized long duplicateReports() {
        return duplicates;
    }

    /** Reports ignored so far as late. */
    public synchronized long lateReports() {
        return late;
    }
}
