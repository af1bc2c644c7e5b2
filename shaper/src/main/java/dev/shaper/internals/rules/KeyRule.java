package dev.shaper.internals.rules;

import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;

/**
 * One entry of the rules file: the keys it picks, the shaping they get, and their admission (an algorithm and its
 * limits; {@code null}: the default admission, which may be none).
 */
public record KeyRule(KeyMatcher matcher, ShapingRule shaping, AdmissionPolicy admission) {

    public KeyRule(KeyMatcher matcher, ShapingRule shaping) {
        this(matcher, shaping, null);
    }
}
