package dev.shaper.internals.admission;

/** How admission keeps its counters in Redis ({@code shaper.admission.mode}). */
public enum AdmissionMode {
    /** One Redis call per record: exact, shared with any service that runs the same script. */
    STRICT,
    /** Local mirrors, reconciled with Redis every sync interval in one pipelined round trip; bounded excess. */
    BATCHED
}
