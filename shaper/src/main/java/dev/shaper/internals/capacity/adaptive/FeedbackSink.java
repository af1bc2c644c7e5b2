package dev.shaper.internals.capacity.adaptive;

import dev.shaper.feedback.FeedbackReport;

/** Where the feedback listener hands each good report: with its writer's id and when this shaper received it. */
@FunctionalInterface
public interface FeedbackSink {

    /**
     * @param writerId     the feedback record's key
     * @param receivedAtMs when the listener read it, epoch milliseconds by this shaper's clock
     */
    void report(String writerId, FeedbackReport report, long receivedAtMs);
}
