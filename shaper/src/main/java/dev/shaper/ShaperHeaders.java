package dev.shaper;

/**
 * Names of the record headers the shaper reads and writes. Every value is UTF-8 text; numbers are decimal.
 */
public final class ShaperHeaders {

    /** Read from input: how many units of rate one record uses, a whole number from 1 to {@link #MAX_COST}. */
    public static final String COST = "shaper.cost";
    /** The largest cost one record may declare. */
    public static final long MAX_COST = 1_000_000L;

    /**
     * Read from input: what to do with a record that would have to wait in its key's queue (its key's rate, or the
     * total rate, holds it back): {@value #ON_LIMIT_QUEUE} (the default, as without the header) queues it;
     * {@value #ON_LIMIT_REJECT} rejects it at once as {@link RejectReason#RATE_LIMITED}, with the wait as its
     * {@link #RETRY_AFTER_MS}. At most one such header, its value exactly one of the two words; anything else is
     * rejected as {@link RejectReason#INVALID_ON_LIMIT}.
     */
    public static final String ON_LIMIT = "shaper.on.limit";
    /** {@link #ON_LIMIT}: queue a record that has to wait (the default). */
    public static final String ON_LIMIT_QUEUE = "queue";
    /** {@link #ON_LIMIT}: reject a record that would have to wait, with the time to wait as its retry-after. */
    public static final String ON_LIMIT_REJECT = "reject";

    /**
     * Read from input: the latest wall-clock time, in epoch milliseconds, the record may leave the shaper. A record
     * whose expected release is later is rejected at arrival, and one still queued once its deadline has passed is
     * rejected at the next release tick instead of released late; both as {@link RejectReason#DEADLINE_EXCEEDED}. Plain ASCII digits, from {@link #MIN_DEADLINE_MS} to
     * {@link #MAX_DEADLINE_MS}, at most one such header; anything else is rejected as
     * {@link RejectReason#INVALID_DEADLINE}.
     */
    public static final String DEADLINE_MS = "shaper.deadline.ms";
    /**
     * The smallest deadline taken, 2001-09-09: a smaller number is read as a mistake (seconds, or a duration in
     * milliseconds) rather than a date long past.
     */
    public static final long MIN_DEADLINE_MS = 1_000_000_000_000L;
    /** The largest deadline taken: 9999-12-31T23:59:59.999Z. */
    public static final long MAX_DEADLINE_MS = 253_402_300_799_999L;

    /**
     * Added to shaped records that waited: milliseconds of wall-clock time the record spent queued. A record that
     * passed at once carries none; read a missing header as 0. Also added to rejected records that were taken out
     * of their queue (expired, cut at a fall of the capacity, past their deadline, or unfit for the output when
     * due): how long they waited before; a record refused at arrival carries none.
     */
    public static final String QUEUED_MS = "shaper.queued.ms";

    /**
     * Added to shaped records when {@code shaper.output.released.header} is true: the wall-clock time, in epoch milliseconds, at which the shaper released the
     * record (for a record that passed at once, when it arrived). With {@link #QUEUED_MS} it says when the
     * record entered and left its queue; downstream it gives the end-to-end latency, and it is where the
     * shaper's rate guarantee can be checked exactly (transport and exactly-once transactions add their own
     * jitter afterwards).
     */
    public static final String RELEASED_MS = "shaper.released.ms";

    /** Added to rejected records: the {@link RejectReason} name. */
    public static final String REASON = "shaper.reason";
    /** Added to rejected records that a retry can cure: milliseconds after which a retry would find room. */
    public static final String RETRY_AFTER_MS = "shaper.retry.after.ms";
    /** Added to rejected records: a human-readable explanation. */
    public static final String DETAIL = "shaper.detail";
    /**
     * Added to a rejected record that the rejected topic would not take whole: what was left out, a comma-separated
     * list of {@code value}, {@code key} and {@code headers} (the record's own headers; the shaper's are kept), in
     * the order they were dropped until the record fit.
     */
    public static final String OMITTED = "shaper.omitted";
    /** Added to rejected records: where the record was read from. */
    public static final String SOURCE_TOPIC = "shaper.source.topic";
    /** Added to rejected records: the input partition. */
    public static final String SOURCE_PARTITION = "shaper.source.partition";
    /** Added to rejected records: the input offset. */
    public static final String SOURCE_OFFSET = "shaper.source.offset";

    /**
     * On a record of the shadow topic ({@code shaper.shadow.topic}): what a rule in shadow would have done with the
     * record of the same key, {@link #SHADOW_QUEUE} or {@link #SHADOW_REJECT} (it passed at once). A rejection also
     * carries {@link #REASON}, {@link #DETAIL} and, where a retry could cure it, {@link #RETRY_AFTER_MS}; both carry
     * the record's {@link #SOURCE_TOPIC}, {@link #SOURCE_PARTITION} and {@link #SOURCE_OFFSET}.
     */
    public static final String SHADOW_DECISION = "shaper.shadow.decision";
    /** {@link #SHADOW_DECISION}: the record would have waited in its key's queue. */
    public static final String SHADOW_QUEUE = "queue";
    /** {@link #SHADOW_DECISION}: the record would have gone to the rejected topic. */
    public static final String SHADOW_REJECT = "reject";
    /** On a record of the shadow topic that would have waited: how long, in milliseconds. */
    public static final String SHADOW_DELAY_MS = "shaper.shadow.delay.ms";

    private ShaperHeaders() {
    }
}
