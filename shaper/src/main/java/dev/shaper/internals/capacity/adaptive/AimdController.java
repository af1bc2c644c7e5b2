package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;

/**
 * Additive increase, multiplicative decrease, as TCP's congestion control: while the writers are healthy (p99 at or
 * under the target, error ratio at or under its bound) each decision adds {@code alpha}; otherwise it multiplies by
 * {@code beta}. Always within the bounds.
 *
 * <p>Defaults: {@code beta} 0.7, a cut of 30 % per unhealthy decision; {@code alpha} a twentieth of the maximum per
 * second, scaled to the decision interval, so the capacity climbs from the minimum back to the maximum in under 20 s.
 */
public final class AimdController implements CapacityController {

    /** The cut per unhealthy decision: 30 %, so one decision already meets "at least 30 % within three". */
    public static final double DEFAULT_BETA = 0.7;
    /** The increase per second of healthy decisions, as a share of the maximum. */
    public static final double DEFAULT_ALPHA_SHARE_PER_SECOND = 1.0 / 20;

    private final CapacityBounds bounds;
    private final double targetLatencyMs;
    private final double maxErrorRatio;
    private final double alpha;
    private final double beta;

    /**
     * @param alpha the increase per healthy decision, units per second (more than 0)
     * @param beta  the factor per unhealthy decision, in (0, 1)
     */
    public AimdController(CapacityBounds bounds, double targetLatencyMs, double maxErrorRatio, double alpha,
                          double beta) {
        if (!(alpha > 0) || !(beta > 0 && beta < 1)) {
            throw new IllegalArgumentException("AIMD needs alpha > 0 and beta in (0, 1), got " + alpha + " and "
                    + beta);
        }
        this.bounds = bounds;
        this.targetLatencyMs = targetLatencyMs;
        this.maxErrorRatio = maxErrorRatio;
        this.alpha = alpha;
        this.beta = beta;
    }

    /** The default parameters for {@code settings}. */
    public static AimdController withDefaults(AdaptiveSettings settings) {
        return new AimdController(settings.bounds(), settings.targetLatencyMs(), settings.maxErrorRatio(),
                defaultAlpha(settings), DEFAULT_BETA);
    }

    /** A twentieth of the maximum per second, for one decision interval. */
    static double defaultAlpha(AdaptiveSettings settings) {
        return settings.bounds().max() * DEFAULT_ALPHA_SHARE_PER_SECOND * settings.adjustMs() / 1000.0;
    }

    @Override
    public CapacityDecision decide(double current, FeedbackSignal signal) {
        if (!signal.hasReports()) {
            return CapacityDecision.of(bounds.clamp(current), Reason.NO_FEEDBACK, signal);
        }
        // Errors first: failed writes are the plainer sign of an overloaded database; the cut is the same.
        if (signal.errorRatio() > maxErrorRatio) {
            return CapacityDecision.of(bounds.clamp(current * beta), Reason.ERRORS, signal);
        }
        if (signal.hasLatency() && signal.latencyP99Ms() > targetLatencyMs) {
            return CapacityDecision.of(bounds.clamp(current * beta), Reason.LATENCY, signal);
        }
        return CapacityDecision.of(bounds.clamp(current + alpha), Reason.HEALTHY, signal);
    }

    @Override
    public String toString() {
        return "AIMD(alpha " + alpha + "/s per decision, beta " + beta + ")";
    }
}
