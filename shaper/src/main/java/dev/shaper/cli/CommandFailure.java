package dev.shaper.cli;

/** A failure of a {@code rules} command with its exit code; the message says what to do. */
final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    CommandFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
