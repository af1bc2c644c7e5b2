package dev.shaper.internals.processor;

/** What a check made of a record: {@link Valid}, or a {@link Refusal} that says why not. */
interface CheckOutcome {

    /**
     * The record can be handled.
     *
     * @param cost           the units it costs
     * @param rejectsWaiting whether it is rejected rather than queued if it would have to wait
     *                       ({@code shaper.on.limit: reject})
     * @param deadlineMs     the latest wall-clock time it may leave, {@link DeadlineHeader#NONE} for none
     */
    record Valid(long cost, boolean rejectsWaiting, long deadlineMs) implements CheckOutcome {}
}
