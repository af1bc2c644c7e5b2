package dev.shaper.internals.admission;

/**
 * A token bucket's rate per second and burst, as {@code admission.rate} and {@code admission.burst} (or {@code
 * shaper.admission.rate} and {@code .burst}) set them; {@link AdmissionPolicy#of(AdmissionRule)} makes it a key's
 * policy.
 *
 * @param ratePerSecond tokens added per second
 * @param burst         the bucket's capacity in tokens: the most that can be spent at once
 */
public record AdmissionRule(double ratePerSecond, double burst) {

    public AdmissionRule {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("admission rate must be a finite number > 0, got " + ratePerSecond);
        }
        if (!(burst >= 1) || Double.isInfinite(burst)) {
            throw new IllegalArgumentException("admission burst must be a finite number >= 1, got " + burst);
        }
    }

    /** The burst to use when none is configured: one second of rate, and never less than one token. */
    public static double defaultBurst(double ratePerSecond) {
        return Math.max(1, ratePerSecond);
    }
}
