package dev.shaper.internals.capacity.adaptive;

/**
 * What the database writers said for one decision: the reports taken since the previous decision, combined
 * ({@link FeedbackAggregator}), or that there is nothing new, or nothing at all within the feedback timeout.
 *
 * @param freshness    whether there are new reports, none since the previous decision, or none within the timeout
 * @param writers      writers with at least one new report
 * @param writes       units written successfully, all new reports together
 * @param errors       units whose write failed, all new reports together
 * @param latencyP99Ms the largest p99 among the new reports of writers that attempted something, milliseconds; NaN
 *                     when none did
 */
public record FeedbackSignal(Freshness freshness, int writers, long writes, long errors, double latencyP99Ms) {

    /** Whether a decision has something new to go on. */
    public enum Freshness {
        /** At least one report arrived since the previous decision. */
        NEW_REPORTS,
        /** No report since the previous decision, but one within the feedback timeout: the last picture stands. */
        NOTHING_NEW,
        /** No report within the feedback timeout: the writers are silent, or not there. */
        NO_FEEDBACK
    }

    private static final FeedbackSignal NO_FEEDBACK = new FeedbackSignal(Freshness.NO_FEEDBACK, 0, 0, 0, Double.NaN);
    private static final FeedbackSignal NOTHING_NEW = new FeedbackSignal(Freshness.NOTHING_NEW, 0, 0, 0, Double.NaN);

    /** A signal that combines new reports. */
    public FeedbackSignal {
        if (freshness == null || writers < 0 || writes < 0 || errors < 0) {
            throw new IllegalArgumentException("a feedback signal needs a freshness and counts >= 0, got "
                    + freshness + ", " + writers + ", " + writes + ", " + errors);
        }
        if (freshness == Freshness.NEW_REPORTS && writers == 0) {
            throw new IllegalArgumentException("new reports come from at least one writer");
        }
    }

    /** New reports from {@code writers} writers, combined. */
    public static FeedbackSignal of(int writers, long writes, long errors, double latencyP99Ms) {
        return new FeedbackSignal(Freshness.NEW_REPORTS, writers, writes, errors, latencyP99Ms);
    }

    /** No report within the feedback timeout. */
    public static FeedbackSignal noFeedback() {
        return NO_FEEDBACK;
    }

    /** No report since the previous decision, but feedback has not timed out. */
    public static FeedbackSignal nothingNew() {
        return NOTHING_NEW;
    }

    /** Whether new reports arrived. */
    public boolean hasReports() {
        return freshness == Freshness.NEW_REPORTS;
    }

    /** Units attempted: written and failed. */
    public long attempts() {
        return writes + errors;
    }

    /** The share of the attempted units that failed, 0 when nothing was attempted. */
    public double errorRatio() {
        long attempts = attempts();
        return attempts == 0 ? 0 : (double) errors / attempts;
    }

    /** Whether some writer attempted something, so that there is a latency to judge. */
    public boolean hasLatency() {
        return !Double.isNaN(latencyP99Ms);
    }
}
