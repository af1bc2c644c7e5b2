package dev.shaper.internals.rules;

import dev.shaper.internals.shaping.ShapingRule;

/** One entry of the rules file: the keys it picks and the shaping they get. */
public record KeyRule(KeyMatcher matcher, ShapingRule shaping) {
}
