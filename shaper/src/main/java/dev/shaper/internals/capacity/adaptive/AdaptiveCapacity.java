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
 * Where the instances agree on one decision ({@link ClosedLoop}), each proposes what its controller allows
 * ({@link #allowed}) and {@link #adopt adopts} the decision in force, so that their controllers go on from the same
 * capacity. Thread-safe.
 */
public final class AdaptiveCapacity {

    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveCapacity.class);

    private final AdaptiveSettings settings;
    private final CapacityController controller;
    private final FeedbackAggregator feedback;
    private WarmUp warmUp;
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
     * A writer's report, received at {@code receivedAtMs} by this shaper's clock, for the next decision. Duplicates,
     * reports older than one already seen from the writer, and late ones are ignored and counted.
     *
     * @param writerId the feedback record's key
     */
    public void onReport(String writerId, FeedbackReport report, long receivedAtMs) {
        feedback.add(writerId, report, receivedAtMs);
    }

    /** The decision at {@code nowMs}, from the reports since the previous one; the caller makes one per interval. */
    public synchronized CapacityDecision decide(long nowMs) {
        last = propose(nowMs);
        return last;
    }

    /**
     * This instance's proposal at {@code nowMs}, from the reports since the previous one, for the instances to agree
     * on: the controller moves ({@link #allowed}), the capacity in force does not until {@link #adopt}, or
     * {@link #useOwn} if no agreement comes. So while the agreement is on its way, what the instance applies and shows
     * is the last decision in force, never a proposal the others may overrule.
     */
    public synchronized CapacityDecision propose(long nowMs) {
        FeedbackSignal signal = feedback.take(nowMs);
        switch (signal.freshness()) {
            case NEW_REPORTS -> allowed = controller.decide(last.capacity(), signal);
            // A hold of what the controller allowed, not of the capacity in use, so a warm-up's ceiling goes on rising
            // toward it.
            case NO_FEEDBACK -> allowed = controller.decide(allowed.capacity(), signal);
            case NOTHING_NEW -> { }
        }
        CapacityDecision decision = warmUp.limit(allowed, nowMs);
        logFeedbackChanges(signal);
        return decision;
    }

    /** No agreement came for {@code proposal} (see {@link #propose}): it is the decision in force. */
    public synchronized void useOwn(CapacityDecision proposal) {
        last = proposal;
    }

    /** What the controller allowed at the last decision, before the warm-up's ceiling: this instance's proposal. */
    public synchronized CapacityDecision allowed() {
        return allowed;
    }

    /**
     * Takes the decision the instances agreed on as this one's: the controller goes on from {@code capacity}, under the
     * warm-up's ceiling. The writers' p99 and error ratio stay those this instance saw.
     *
     * @param warmUpStartMs the start of the newest warm-up any instance reported; a newer one than this instance's
     *                      starts here too (0: none)
     */
    public synchronized CapacityDecision adopt(double capacity, Reason reason, long warmUpStartMs, long nowMs) {
        startWarmUp(warmUpStartMs, nowMs);
        allowed = new CapacityDecision(settings.bounds().clamp(capacity), reason, allowed.latencyP99Ms(),
                allowed.errorRatio());
        last = warmUp.limit(allowed, nowMs);
        return last;
    }

    /**
     * Starts a warm-up at {@code startMs}: from then the capacity's ceiling rises from the minimum to the maximum over
     * {@code shaper.capacity.warmup.ms}, and applies at once. Nothing happens with no warm-up set, or for a start no
     * newer than that of the warm-up in place.
     *
     * @return whether a warm-up started
     */
    public synchronized boolean startWarmUp(long startMs, long nowMs) {
        if (settings.warmUpMs() == 0 || startMs <= warmUp.startMs()) {
            return false;
        }
        warmUp = new WarmUp(settings.bounds(), startMs, settings.warmUpMs());
        last = warmUp.limit(allowed, nowMs);
        return true;
    }

    /** The start of the newest warm-up, epoch milliseconds; 0 for none. */
    public synchronized long warmUpStartMs() {
        return warmUp.startMs();
    }

    private void logFeedbackChanges(FeedbackSignal signal) {
        boolean missing = signal.freshness() == FeedbackSignal.Freshness.NO_FEEDBACK;
        if (missing && !feedbackMissing) {
            LOG.warn("Capacity: no feedback from the database writers within {} ms; holding the capacity at {}/s"
                    + " until they report again", settings.feedbackTimeoutMs(), round(allowed.capacity()));
        } else if (signal.hasReports() && feedbackMissing) {
            LOG.info("Capacity: feedback from {} writer(s) again", signal.writers());
        }
        feedbackMissing = missing;
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

    /** The settings the loop runs on. */
    public AdaptiveSettings settings() {
        return settings;
    }

    /** When the newest report accepted was received, epoch milliseconds by this shaper's clock; null before any. */
    public Long newestReceivedAtMs() {
        return feedback.newestReceivedAtMs();
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
