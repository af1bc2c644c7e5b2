package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;

/**
 * Moves the capacity in proportion to how far the writers' p99 is from the target, in the spirit of concurrency-limits'
 * Gradient2: the gradient {@code target / p99} proposes {@code current x gradient}, and each decision goes
 * {@link #SMOOTHING} of the way there, since one interval's p99 is noisy. Always within the bounds.
 *
 * <ul>
 *   <li>p99 above the target: a cut of {@value #MIN_CUT_PERCENT} % to 30 % per decision, more the further above (30 %
 *       from 2.5 times the target on). The floor keeps the promise "at least 30 % within three decisions" however
 *       slight the excess ({@code 0.88^3 = 0.68}); the ceiling is AIMD's cut, never harsher.</li>
 *   <li>error ratio above its bound: the same, with {@code bound / ratio} as the gradient.</li>
 *   <li>healthy: up by the gradient, at most {@value #MAX_GROWTH_PERCENT_PER_SECOND} % per second before smoothing
 *       (so 10 % per second), and never by less than AIMD's alpha, so that recovery from the minimum is no slower.</li>
 * </ul>
 */
public final class GradientController implements CapacityController {

    /** The share of the way to the gradient's proposal that one decision goes. */
    static final double SMOOTHING = 0.5;
    /** The lowest gradient: with the smoothing, a cut of at most 30 %, AIMD's. */
    static final double MIN_GRADIENT = 0.4;
    /** The least cut of an unhealthy decision, percent. */
    static final int MIN_CUT_PERCENT = 12;
    /** The highest gradient's growth per second of decision interval, percent. */
    static final int MAX_GROWTH_PERCENT_PER_SECOND = 20;

    private final CapacityBounds bounds;
    private final double targetLatencyMs;
    private final double maxErrorRatio;
    private final double alpha;
    private final double maxGradient;

    /**
     * @param alpha      the least increase per healthy decision, units per second (more than 0)
     * @param adjustMs   the decision interval, which scales the largest growth per decision
     */
    public GradientController(CapacityBounds bounds, double targetLatencyMs, double maxErrorRatio, double alpha,
                              long adjustMs) {
        if (!(alpha > 0) || adjustMs <= 0) {
            throw new IllegalArgumentException("the gradient controller needs alpha > 0 and an interval > 0, got "
                    + alpha + " and " + adjustMs);
        }
        this.bounds = bounds;
        this.targetLatencyMs = targetLatencyMs;
        this.maxErrorRatio = maxErrorRatio;
        this.alpha = alpha;
        // Growth is per second, like AIMD's alpha; a proposal above doubling is not a gradient any more.
        this.maxGradient = 1 + Math.min(1.0, MAX_GROWTH_PERCENT_PER_SECOND / 100.0 * adjustMs / 1000.0);
    }

    /** The default parameters for {@code settings}. */
    public static GradientController withDefaults(AdaptiveSettings settings) {
        return new GradientController(settings.bounds(), settings.targetLatencyMs(), settings.maxErrorRatio(),
                AimdController.defaultAlpha(settings), settings.adjustMs());
    }

    @Override
    public CapacityDecision decide(double current, FeedbackSignal signal) {
        if (!signal.hasReports()) {
            return CapacityDecision.of(bounds.clamp(current), Reason.NO_FEEDBACK, signal);
        }
        double errorRatio = signal.errorRatio();
        if (errorRatio > maxErrorRatio) {
            return CapacityDecision.of(cut(current, maxErrorRatio / errorRatio), Reason.ERRORS, signal);
        }
        double p99 = signal.latencyP99Ms();
        if (signal.hasLatency() && p99 > targetLatencyMs) {
            return CapacityDecision.of(cut(current, targetLatencyMs / p99), Reason.LATENCY, signal);
        }
        // No latency (nothing attempted) or none at all: nothing holds the capacity back.
        double gradient = signal.hasLatency() && p99 > 0 ? Math.min(targetLatencyMs / p99, maxGradient) : maxGradient;
        double raised = Math.max(smoothed(current, gradient), current + alpha);
        return CapacityDecision.of(bounds.clamp(raised), Reason.HEALTHY, signal);
    }

    private double cut(double current, double gradient) {
        double factor = Math.min(1 + SMOOTHING * (Math.max(gradient, MIN_GRADIENT) - 1), 1 - MIN_CUT_PERCENT / 100.0);
        return bounds.clamp(current * factor);
    }

    private static double smoothed(double current, double gradient) {
        return current * (1 + SMOOTHING * (gradient - 1));
    }

    @Override
    public String toString() {
        return "gradient(smoothing " + SMOOTHING + ", gradient in [" + MIN_GRADIENT + ", " + maxGradient + "], alpha "
                + alpha + "/s per decision)";
    }
}
