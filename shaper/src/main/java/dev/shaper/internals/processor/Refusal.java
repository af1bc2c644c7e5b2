package dev.shaper.internals.processor;

import dev.shaper.RejectReason;

/**
 * Why a record goes to the rejected topic, whichever step of the pipeline refused it.
 *
 * @param retryAfterMs when a retry would find room; 0 when waiting would not help
 * @param detail       for the operator: what was refused and which limit refused it
 */
record Refusal(RejectReason reason, long retryAfterMs, String detail) implements CheckOutcome {

    /** A refusal that no wait would cure. */
    Refusal(RejectReason reason, String detail) {
        this(reason, 0, detail);
    }
}
