package dev.shaper.internals.admission;

/**
 * The answer of admission to one request.
 *
 * @param allowed      whether the record was admitted (its cost taken from every limit)
 * @param tokensLeft   what is left after the request: a token bucket's tokens, a window's amount less its count;
 *                     with several limits, when refused the refusing limit's (see {@code limit}), when allowed the
 *                     least of them
 * @param retryAfterMs when refused: the wait until every limit allows the cost (whole ms, at least 1); 0 when
 *                     allowed
 * @param limit        when refused: the index, in the rule's limits, of the limit that needs the longest wait (the
 *                     one that decides the retry-after); 0 when allowed or with one limit
 */
public record AdmissionDecision(boolean allowed, double tokensLeft, long retryAfterMs, int limit) {

    /** The longest wait a decision reports: ten years, as the Redis scripts cap theirs. */
    static final long MAX_WAIT_MS = 315_360_000_000L;

    /** A decision of a single limit. */
    public AdmissionDecision(boolean allowed, double tokensLeft, long retryAfterMs) {
        this(allowed, tokensLeft, retryAfterMs, 0);
    }

    static AdmissionDecision allowed(double tokensLeft) {
        return new AdmissionDecision(true, tokensLeft, 0);
    }

    static AdmissionDecision refused(double tokensLeft, double waitSeconds) {
        return new AdmissionDecision(false, tokensLeft, Math.max(1, (long) Math.ceil(waitSeconds * 1000)));
    }

    /** A refusal by limit {@code limit}, after {@code waitNanos} (capped at ten years). */
    static AdmissionDecision refusedNanos(double tokensLeft, long waitNanos, int limit) {
        long ms = waitNanos >= MAX_WAIT_MS * 1_000_000L ? MAX_WAIT_MS : Math.max(1, (waitNanos + 999_999) / 1_000_000);
        return new AdmissionDecision(false, tokensLeft, ms, limit);
    }
}
