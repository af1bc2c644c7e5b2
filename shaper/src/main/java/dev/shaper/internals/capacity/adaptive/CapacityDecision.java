package dev.shaper.internals.capacity.adaptive;

import java.util.Locale;

/**
 * One decision of the closed loop: the capacity from now on and why, with what the writers' feedback showed.
 *
 * @param capacity     the capacity of the whole application from now on, units per second
 * @param reason       why it is where it is
 * @param latencyP99Ms the writers' p99 latency the decision saw, milliseconds; NaN when it saw none
 * @param errorRatio   the writers' error ratio the decision saw; NaN when it saw no feedback
 */
public record CapacityDecision(double capacity, Reason reason, double latencyP99Ms, double errorRatio) {

    /** Why the capacity is where it is. */
    public enum Reason {
        /** Cut: the writers' p99 latency was above the target. */
        LATENCY,
        /** Cut: the writers' error ratio was above its bound. */
        ERRORS,
        /** Raised, or kept at the maximum: latency and errors within bounds. */
        HEALTHY,
        /** Held where it was: no feedback within the timeout. */
        NO_FEEDBACK,
        /** Held below what the controller allows by the warm-up after a restore. */
        WARMING_UP;

        /** The name as a metric tag. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The reason a {@link #tag()} names. */
        public static Reason ofTag(String tag) {
            return valueOf(tag.toUpperCase(Locale.ROOT));
        }
    }

    /** A decision to a capacity, for a reason, on what {@code seen} showed. */
    static CapacityDecision of(double capacity, Reason reason, FeedbackSignal seen) {
        boolean feedback = seen.hasReports();
        return new CapacityDecision(capacity, reason, feedback ? seen.latencyP99Ms() : Double.NaN,
                feedback ? seen.errorRatio() : Double.NaN);
    }

    /** The same decision, with another capacity and reason. */
    CapacityDecision limitedTo(double capacity, Reason reason) {
        return new CapacityDecision(capacity, reason, latencyP99Ms, errorRatio);
    }
}
