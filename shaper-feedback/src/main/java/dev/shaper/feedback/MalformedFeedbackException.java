package dev.shaper.feedback;

/** A feedback record that is not a valid {@link FeedbackReport}; the message says what is wrong with it. */
public final class MalformedFeedbackException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedFeedbackException(String message) {
        super(message);
    }
}
