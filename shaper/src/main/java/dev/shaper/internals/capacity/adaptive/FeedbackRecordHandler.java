package dev.shaper.internals.capacity.adaptive;

import dev.shaper.ShaperConfig;
import dev.shaper.feedback.FeedbackReport;
import dev.shaper.feedback.MalformedFeedbackException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns feedback records into reports: parses each and hands the good ones on with their writer's id (the record
 * key) and the time it was received. A malformed record (no key, a value that is not a {@link FeedbackReport}, a
 * report whose window ends further ahead of this shaper's clock than the feedback timeout: its writer's clock is
 * ahead, and a report from the future would pass for the newest for as long) is counted, and only a writer's first
 * one is logged, so that a writer sending garbage every second does not flood the log. Never throws: a bad record
 * must not stop the listener.
 */
final class FeedbackRecordHandler {

    private static final Logger LOG = LoggerFactory.getLogger(FeedbackRecordHandler.class);
    /** Writers whose malformed records are logged at most; bounds the memory of keys that change every record. */
    static final int MAX_WRITERS_LOGGED = 10_000;
    /** How a record without a key is named in the log. */
    static final String NO_WRITER = "(no key)";

    private final FeedbackSink sink;
    private final LongSupplier clockMs;
    private final long maxAheadMs;
    private final AtomicLong handedOn = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final Set<String> writersLogged = ConcurrentHashMap.newKeySet();

    /**
     * @param sink       takes each good report with its writer's id and when it was received
     * @param clockMs    this shaper's wall clock, epoch milliseconds
     * @param maxAheadMs how far ahead of that clock a report's window may end: the feedback timeout
     */
    FeedbackRecordHandler(FeedbackSink sink, LongSupplier clockMs, long maxAheadMs) {
        this.sink = sink;
        this.clockMs = clockMs;
        this.maxAheadMs = maxAheadMs;
    }

    /** Hands the record's report on, or counts (and maybe logs) it as malformed. */
    void handle(ConsumerRecord<byte[], byte[]> record) {
        String writerId = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (writerId == null || writerId.isBlank()) {
            malformed(NO_WRITER, record, "no writer id: the record key must name the writer");
            return;
        }
        FeedbackReport report;
        try {
            report = FeedbackReport.parse(record.value());
        } catch (MalformedFeedbackException e) {
            malformed(writerId, record, e.getMessage());
            return;
        }
        long receivedAtMs = clockMs.getAsLong();
        if (report.atMs() > receivedAtMs + maxAheadMs) {
            malformed(writerId, record, "its window ends at " + report.atMs() + ", " + (report.atMs() - receivedAtMs)
                    + " ms ahead of this shaper's clock, more than the feedback timeout ("
                    + ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG + "=" + maxAheadMs + "): the writer's clock is"
                    + " ahead; set it right (NTP)");
            return;
        }
        try {
            sink.report(writerId, report, receivedAtMs);
            handedOn.incrementAndGet();
        } catch (RuntimeException e) {
            // A bug downstream; the next record may still get through, and the listener must go on either way.
            LOG.error("Feedback: report of writer {} at {}-{}@{} could not be taken", writerId, record.topic(),
                    record.partition(), record.offset(), e);
        }
    }

    private void malformed(String writerId, ConsumerRecord<byte[], byte[]> record, String what) {
        malformed.incrementAndGet();
        if (writersLogged.size() < MAX_WRITERS_LOGGED && writersLogged.add(writerId)) {
            LOG.warn("Feedback: malformed record of writer {} at {}-{}@{} ignored: {}. Further malformed records of this"
                    + " writer are counted, not logged", writerId, record.topic(), record.partition(),
                    record.offset(), what);
        }
    }

    /** Good reports handed on so far. */
    long reports() {
        return handedOn.get();
    }

    /** Malformed records so far. */
    long malformedRecords() {
        return malformed.get();
    }
}
