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
 * decision. A report carries the end of its window ({@code atMs}, by the writer's clock) and is added with the time
 * this shaper received it, by its own clock; freshness is judged by the receipt, so a writer's clock does not decide
 * whether feedback is present:
 * <ul>
 *   <li>A report counts once. Per writer (the record key), a report that ends no later than one already accepted from
 *       that writer is a duplicate (a producer's retry, a re-read) or out of order, and is ignored; a writer not heard
 *       from for a feedback timeout starts afresh.</li>
 *   <li>A decision takes every report received since the previous one, so a report on its way during a decision
 *       counts in the next. One that ended a feedback timeout or more before it was received describes a database
 *       that may have changed since, and is ignored as late (its writer logged once: its clock may be behind). One
 *       dated ahead of the shaper's clock is refused before it gets here ({@link FeedbackRecordHandler}).</li>
 *   <li>Writes and errors add up over all reports taken. Several reports of one writer (it reports more often than
 *       decisions are made) count as one writer.</li>
 *   <li>The p99 is the largest of the writers' p99s, among reports that attempted something.</li>
 *   <li>Feedback is missing when no report taken so far was received within the timeout.</li>
 * </ul>
 * Thread-safe: the feedback listener adds from its thread while decisions take from another.
 */
public final class FeedbackAggregator {

    private static final Logger LOG = LoggerFactory.getLogger(FeedbackAggregator.class);
    /** Writers whose late reports are logged at most; bounds the memory of writer ids that change every record. */
    static final int MAX_WRITERS_LOGGED = 10_000;

    /** A writer's newest report accepted: the end of its window, and when it was received. */
    private record Newest(long atMs, long receivedAtMs) {
    }

    private final long timeoutMs;
    /** Reports received since the last decision, by writer, in the order they came. */
    private final Map<String, List<FeedbackReport>> pending = new HashMap<>();
    /** By writer, its newest report accepted: what does not end later is a duplicate. */
    private final Map<String, Newest> newest = new HashMap<>();
    private final Set<String> lateWritersLogged = new HashSet<>();
    /** When the newest report accepted from any writer was received; null before the first. */
    private Long newestReceivedAtMs;
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
     * A writer's report, received at {@code receivedAtMs} by this shaper's clock, for the next decision.
     *
     * @return false when it is a duplicate, older than one already accepted from the writer, or late, and is ignored
     */
    public synchronized boolean add(String writerId, FeedbackReport report, long receivedAtMs) {
        Newest last = newest.get(writerId);
        if (last != null && report.atMs() <= last.atMs()) {
            duplicates++;
            return false;
        }
        if (report.atMs() <= receivedAtMs - timeoutMs) {
            late++;
            logLate(writerId, receivedAtMs - report.atMs());
            return false;
        }
        newest.put(writerId, new Newest(report.atMs(), receivedAtMs));
        pending.computeIfAbsent(writerId, w -> new ArrayList<>(2)).add(report);
        newestReceivedAtMs = newestReceivedAtMs == null ? receivedAtMs : Math.max(newestReceivedAtMs, receivedAtMs);
        accepted++;
        return true;
    }

    /** The signal of a decision at {@code nowMs}: the reports received since the previous one, combined. */
    public synchronized FeedbackSignal take(long nowMs) {
        int writers = 0;
        long writes = 0;
        long errors = 0;
        double p99 = Double.NaN;
        for (Map.Entry<String, List<FeedbackReport>> writer : pending.entrySet()) {
            writers++;
            for (FeedbackReport report : writer.getValue()) {
                writes += report.writes();
                errors += report.errors();
                // The union's p99 is never above the largest writer's p99, and percentiles alone prove no smaller
                // value; a writer that attempted nothing has no latency to count.
                if (report.attempts() > 0 && report.latencyP99Ms() != null
                        && (Double.isNaN(p99) || report.latencyP99Ms() > p99)) {
                    p99 = report.latencyP99Ms();
                }
            }
        }
        pending.clear();
        long staleUpToMs = nowMs - timeoutMs;
        // A writer not heard from for a timeout starts afresh: a clock of its that went back then no longer
        // makes its reports duplicates.
        newest.values().removeIf(last -> last.receivedAtMs() <= staleUpToMs);
        if (writers > 0) {
            return FeedbackSignal.of(writers, writes, errors, p99);
        }
        // Every report accepted so far is taken by now: the newest receipt is the freshest a decision saw
        return newestReceivedAtMs != null && newestReceivedAtMs > staleUpToMs ? FeedbackSignal.nothingNew()
                : FeedbackSignal.noFeedback();
    }

    private void logLate(String writerId, long agedMs) {
        if (lateWritersLogged.size() < MAX_WRITERS_LOGGED && lateWritersLogged.add(writerId)) {
            LOG.warn("Feedback: a report of writer {} ended {} ms before this shaper received it, more than the"
                    + " feedback timeout ({} ms), and is ignored as late; if this repeats, its clock may be behind the"
                    + " shaper's. Later late reports of this writer are counted, not logged", writerId, agedMs,
                    timeoutMs);
        }
    }

    /** When the newest report accepted was received, epoch milliseconds by this shaper's clock; null before the first. */
    public synchronized Long newestReceivedAtMs() {
        return newestReceivedAtMs;
    }

    /** Reports accepted so far (neither duplicate nor out of order nor late). */
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
