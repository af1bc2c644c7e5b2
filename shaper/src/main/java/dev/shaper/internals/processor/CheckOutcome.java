package dev.shaper.internals.processor;

/** What a check made of a record: {@link Valid}, or a {@link Refusal} that says why not. */
interface CheckOutcome {

    /** The record can be handled; it costs {@code cost} units. */
    record Valid(long cost) implements CheckOutcome {}
}
