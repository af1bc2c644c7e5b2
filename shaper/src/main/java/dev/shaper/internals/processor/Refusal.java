package dev.shaper.internals.processor;

import dev.shaper.RejectReason;

/**
 * Why a record goes to the rejected topic, whichever step of the pipeline refused it; or, from a rule in shadow, why
 * it would have gone there.
 *
 * @param retryAfterMs when a retry would find room; 0 when waiting would not help
 * @param detail       for the operator: what was refused and which limit refused it
 * @param shadow       true when a rule in shadow refused: the record passes, and the refusal is only reported
 */
record Refusal(RejectReason reason, long retryAfterMs, String detail, boolean shadow) implements CheckOutcome {

    Refusal(RejectReason reason, long retryAfterMs, String detail) {
        this(reason, retryAfterMs, detail, false);
    }

    /** A refusal that no wait would cure. */
    Refusal(RejectReason reason, String detail) {
        this(reason, 0, detail);
    }

    /** The same refusal, made by a rule in shadow. */
    Refusal inShadow() {
        return new Refusal(reason, retryAfterMs, detail, true);
    }
}
