package dev.shaper.internals.capacity.adaptive;

import dev.shaper.feedback.FeedbackReport;
import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The closed loop's core, without Kafka and without a clock of its own: the writers' reports go in
 * ({@link #onReport}, from the feedback listener's thread), and one decision per {@code shaper.capacity.adjust.ms}
 * comes out ({@link #decide}, at the time the caller gives). Each decision:
 * <ul>
 *   <li>with new reports, asks the controller, from the capacity in use;</li>
 *   <li>with no report within the feedback timeout, holds what the controller last allowed
 *       ({@link Reason#NO_FEEDBACK}), logged once when feedback goes missing and once when it returns;</li>
 *   <li>with nothing new since the previous decision but feedback not timed out, changes nothing: the last decision's
 *       reason stands, since the picture it was made on is still the newest;</li>
 *   <li>and then applies the warm-up's ceiling, after a start that restored queued records.</li>
 * </ul>
 * A decision that moves the capacity by more than 10 % is logged once. Thread-safe.
 */
public final class AdaptiveCapacity {

    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveCapacity.class);
    /** A move larger than this share of the capacity is logged. */
    private static final double LOGGED_MOVE = 0.10;

    private final AdaptiveSettings settings;
    private final CapacityController controller;
    private final FeedbackAggregator feedback;
    private final WarmUp warmUp;
    /** The controller's last decision, before the warm-up's ceiling: what it allows. */
    private CapacityDecision allowed;
    private volatile CapacityDecision last;
    private boolean feedbackMissing;

    AdaptiveCapacity(AdaptiveSettings settings, CapacityController controller, FeedbackAggregator feedback,
                     WarmUp warmUp, long startMs) {
        this.settings = settings;
        this.controller = controller;
        this.feedback = feedback;
        this.warmUp = warmUp;
        // Until the writers say otherwise, the controller allows the maximum: the fixed capacity of old.
        this.allowed = new CapacityDecision(settings.bounds().max(), Reason.NO_FEEDBACK, Double.NaN, Double.NaN);
        this.last = warmUp.limit(allowed, startMs);
    }

    /**
     * The loop at a start at {@code startMs}, with the controller the settings name.
     *
     * @param restoredRecords whether the start restored queued records: the capacity then starts at the minimum and
     *                        warms up over {@code shaper.capacity.warmup.ms}; otherwise it starts at the maximum
     */
    public static AdaptiveCapacity start(AdaptiveSettings settings, long startMs, boolean restoredRecords) {
        WarmUp warmUp = restoredRecords ? new WarmUp(settings.bounds(), startMs, settings.warmUpMs())
                : WarmUp.none(settings.bounds());
        return new AdaptiveCapacity(settings, settings.newController(),
                new FeedbackAggregator(settings.feedbackTimeoutMs()), warmUp, startMs);
    }

    /**
     * A writer's report, for the next decision. Duplicates and reports older than one already seen from the writer
     * are ignored and counted.
     *
     * @param writerId the feedback record's key
     */
    public void onReport(String writerId, FeedbackReport report) {
        feedback.add(writerId, report);
    }

    /** The decision at {@code nowMs}, from the reports since the previous one; the caller makes one per interval. */
    public synchronized CapacityDecision decide(long nowMs) {
        FeedbackSignal signal = feedback.take(nowMs);
        switch (signal.freshness()) {
            case NEW_REPORTS -> allowed = controller.decide(last.capacity(), signal);
            // A hold of what the controller allowed, not of the capacity in use, so a warm-up's ceiling goes on rising
            // toward it.
            case NO_FEEDBACK -> allowed = controller.decide(allowed.capacity(), signal);
            case NOTHING_NEW -> { }
        }
        CapacityDecision previous = last;
        CapacityDecision decision = warmUp.limit(allowed, nowMs);
        last = decision;
        logChanges(signal, previous, decision);
        return decision;
    }

    private void logChanges(FeedbackSignal signal, CapacityDecision previous, CapacityDecision decision) {
        boolean missing = signal.freshness() == FeedbackSignal.Freshness.NO_FEEDBACK;
        if (missing && !feedbackMissing) {
            LOG.warn("Capacity: no feedback from the database writers within {} ms; holding the capacity at {}/s"
                    + " until they report again", settings.feedbackTimeoutMs(), round(allowed.capacity()));
        } else if (signal.hasReports() && feedbackMissing) {
            LOG.info("Capacity: feedback from {} writer(s) again", signal.writers());
        }
        feedbackMissing = missing;
        if (Math.abs(decision.capacity() - previous.capacity()) > LOGGED_MOVE * previous.capacity()) {
            LOG.info("Capacity: {}/s -> {}/s ({}; writers' p99 {} ms against a target of {} ms, error ratio {})",
                    round(previous.capacity()), round(decision.capacity()), decision.reason().tag(),
                    round(decision.latencyP99Ms()), round(settings.targetLatencyMs()),
                    String.format(Locale.ROOT, "%.4f", decision.errorRatio()));
        }
    }

    private static String round(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** The capacity of the last decision (or the start), units per second. */
    public double capacity() {
        return last.capacity();
    }

    /** The last decision, or at the start the starting capacity (reason {@link Reason#NO_FEEDBACK} or warming up). */
    public CapacityDecision lastDecision() {
        return last;
    }

    /** Whether the last decision found no feedback within the timeout (false before the first decision). */
    public synchronized boolean feedbackMissing() {
        return feedbackMissing;
    }

    /** The range the capacity moves in. */
    public CapacityBounds bounds() {
        return settings.bounds();
    }

    /** Reports ignored so far as duplicates or out of order. */
    public long duplicateReports() {
        return feedback.duplicateReports();
    }

    /** Reports ignored so far as late. */
    public long lateReports() {
        return feedback.lateReports();
    }

    @Override
    public String toString() {
        return "adaptive capacity in [" + round(settings.bounds().min()) + ", " + round(settings.bounds().max())
                + "]/s by " + controller;
    }
}
