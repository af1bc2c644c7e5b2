package dev.shaper.internals.capacity.adaptive;

/**
 * The closed loop's settings, from the {@code shaper.capacity.*} keys of {@code ShaperConfig}, whose docs say what
 * each means.
 *
 * @param bounds            from {@code shaper.capacity.min.rate} to {@code shaper.shaping.total.rate}
 * @param targetLatencyMs   the writers' p99 above which the capacity falls
 * @param maxErrorRatio     the writers' error ratio above which the capacity falls
 * @param adjustMs          the time between two decisions
 * @param feedbackTimeoutMs how long without a report before feedback counts as missing
 * @param warmUpMs          how long the warm-up after a restore lasts (0: none)
 * @param controller        which controller decides
 */
public record AdaptiveSettings(CapacityBounds bounds, double targetLatencyMs, double maxErrorRatio, long adjustMs,
                               long feedbackTimeoutMs, long warmUpMs, ControllerKind controller) {

    /** Settings that break none of the rules above. */
    public AdaptiveSettings {
        if (bounds == null || controller == null) {
            throw new IllegalArgumentException("adaptive settings need bounds and a controller");
        }
        if (!(targetLatencyMs > 0) || Double.isInfinite(targetLatencyMs)) {
            throw new IllegalArgumentException("the target latency must be a finite number > 0, got "
                    + targetLatencyMs);
        }
        if (!(maxErrorRatio >= 0 && maxErrorRatio <= 1)) {
            throw new IllegalArgumentException("the error ratio bound must be in [0, 1], got " + maxErrorRatio);
        }
        if (adjustMs <= 0 || feedbackTimeoutMs <= 0 || warmUpMs < 0) {
            throw new IllegalArgumentException("adjust and feedback timeout must be > 0 ms and the warm-up >= 0 ms, got "
                    + adjustMs + ", " + feedbackTimeoutMs + " and " + warmUpMs);
        }
    }

    /** A new controller of the kind the settings name. */
    public CapacityController newController() {
        return controller.create(this);
    }
}
