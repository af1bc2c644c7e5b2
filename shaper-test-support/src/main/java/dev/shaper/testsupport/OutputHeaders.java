package dev.shaper.testsupport;

/**
 * The names of the headers the shaper writes that {@link CommittedRecordCollector} reads. They are copies of
 * {@code dev.shaper.ShaperHeaders}, not references to it: the shaper's tests depend on this module, so this
 * module cannot depend on the shaper. {@code OutputHeadersTest} in the shaper's tests keeps the copies equal.
 */
public final class OutputHeaders {

    /** {@code ShaperHeaders.QUEUED_MS}: milliseconds a released record waited; absent when it did not wait. */
    public static final String QUEUED_MS = "shaper.queued.ms";
    /** {@code ShaperHeaders.RELEASED_MS}: when the shaper released the record, in epoch milliseconds. */
    public static final String RELEASED_MS = "shaper.released.ms";
    /** {@code ShaperHeaders.REASON}: why a record was rejected. */
    public static final String REASON = "shaper.reason";
    /** {@code ShaperHeaders.RETRY_AFTER_MS}: how long a rejected record's producer should wait before a retry. */
    public static final String RETRY_AFTER_MS = "shaper.retry.after.ms";

    private OutputHeaders() {
    }
}
