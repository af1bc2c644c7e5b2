package dev.shaper.internals.processor;

/** A header of a record's per-record choices that the shaper cannot read; the message says what was found. */
final class InvalidHeaderException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidHeaderException(String message) {
        super(message);
    }
}
