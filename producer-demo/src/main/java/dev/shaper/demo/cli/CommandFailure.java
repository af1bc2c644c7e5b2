package dev.shaper.demo.cli;

/**
 * A command could not do its work for a reason outside the program (a database or broker that refuses); the
 * message says what and where, and is printed without a stack trace.
 */
public final class CommandFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CommandFailure(String message) {
        super(message);
    }
}
