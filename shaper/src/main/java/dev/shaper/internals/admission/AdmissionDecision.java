package dev.shaper.internals.admission;

/**
 * The answer of a token bucket to one request.
 *
 * @param allowed      whether the tokens were taken
 * @param tokensLeft   tokens in the bucket after the request
 * @param retryAfterMs when refused: the wait until enough tokens exist (whole ms, at least 1); 0 when allowed
 */
public record AdmissionDecision(boolean allowed, double tokensLeft, long retryAfterMs) {

    static AdmissionDecision allowed(double tokensLeft) {
        return new AdmissionDecision(true, tokensLeft, 0);
    }

    static AdmissionDecision refused(double tokensLeft, double waitSeconds) {
        return new AdmissionDecision(false, tokensLeft, Math.max(1, (long) Math.ceil(waitSeconds * 1000)));
    }
}
