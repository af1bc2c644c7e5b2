package dev.shaper.internals.capacity.adaptive;

import java.util.Locale;

/** The controllers {@code shaper.capacity.controller} names. */
public enum ControllerKind {
    /** {@link AimdController}: additive increase, multiplicative decrease. */
    AIMD,
    /** {@link GradientController}: moves in proportion to the latency's distance from the target. */
    GRADIENT;

    /** The kind a setting names, in any case. */
    public static ControllerKind of(String name) {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }

    /** A controller of this kind with its default parameters for {@code settings}. */
    public CapacityController create(AdaptiveSettings settings) {
        // A switch the compiler checks: a new kind cannot fall through to another's controller
        return switch (this) {
            case AIMD -> AimdController.withDefaults(settings);
            case GRADIENT -> GradientController.withDefaults(settings);
        };
    }
}
