package dev.shaper.internals.processor;

/**
 * Whether the shaper may take new input: closed when taking it would break its promises whatever it does with the
 * record (the input topic was repartitioned under it). A closed gate rejects every arriving record with the reason
 * it gives; the queues go on draining.
 */
@FunctionalInterface
public interface InputGate {

    /** A gate that never closes. */
    InputGate OPEN = () -> null;

    /** Why no new input may be taken now, for the rejected record's detail; null while it may. */
    String closedBecause();
}
