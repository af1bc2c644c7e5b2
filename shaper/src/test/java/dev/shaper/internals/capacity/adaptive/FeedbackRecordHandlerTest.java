package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.shaper.feedback.FeedbackReport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Feedback records in, reports out: good ones handed on, malformed ones counted and logged once per writer. */
class FeedbackRecordHandlerTest {

    /** This shaper's clock: 2025-11-24T16:00:00Z. */
    private static final long NOW_MS = 1_764_000_000_000L;
    private static final long TIMEOUT_MS = 5_000;

    private final List<Map.Entry<String, FeedbackReport>> handedOn = new ArrayList<>();
    private final List<Long> receivedAt = new ArrayList<>();
    private final FeedbackRecordHandler handler = new FeedbackRecordHandler((w, r, at) -> {
        handedOn.add(Map.entry(w, r));
        receivedAt.add(at);
    }, () -> NOW_MS, TIMEOUT_MS);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(FeedbackRecordHandler.class);
    private long offset;

    @BeforeEach
    void captureLogs() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        logger.detachAppender(logs);
    }

    private ConsumerRecord<byte[], byte[]> record(String writer, String value) {
        return new ConsumerRecord<>("db-feedback", 0, offset++,
                writer == null ? null : writer.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private List<String> warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void shouldHandOnAGoodReportWithItsWritersIdWhenTheRecordIsWellFormed() {
        // When: a writer's report, with a field the shaper does not read
        handler.handle(record("writer-7", "{\"atMs\": 1764000000000, \"windowMs\": 1000, \"writes\": 950,"
                + " \"errors\": 3, \"latencyP99Ms\": 42.5, \"host\": \"db-1\"}"));

        // Then: handed on as it is, and nothing counted as malformed
        assertThat(handedOn).containsExactly(Map.entry("writer-7",
                new FeedbackReport(1_764_000_000_000L, 1_000, 950, 3, 42.5)));
        assertThat(receivedAt).containsExactly(NOW_MS);
        assertThat(handler.reports()).isEqualTo(1);
        assertThat(handler.malformedRecords()).isZero();
    }

    @Test
    void shouldRefuseAReportDatedFurtherAheadOfThisShapersClockThanTheTimeout() {
        // When: one report ends a timeout ahead (a clock a little ahead: taken), one an hour ahead
        handler.handle(record("writer-near", "{\"atMs\": " + (NOW_MS + TIMEOUT_MS)
                + ", \"windowMs\": 1000, \"writes\": 5, \"errors\": 0}"));
        handler.handle(record("writer-ahead", "{\"atMs\": " + (NOW_MS + 3_600_000)
                + ", \"windowMs\": 1000, \"writes\": 5, \"errors\": 0}"));

        // Then: the one from the future is malformed, named with how far ahead it is and what to do
        assertThat(handedOn).extracting(Map.Entry::getKey).containsExactly("writer-near");
        assertThat(handler.malformedRecords()).isEqualTo(1);
        assertThat(warnings()).singleElement().asString().contains("writer-ahead", "3600000 ms ahead",
                "shaper.capacity.feedback.timeout.ms=5000", "clock");
    }

    @Test
    void shouldCountEveryMalformedRecordButLogOnlyTheFirstOfEachWriterWhenWritersSendGarbage() {
        // When: writer-b sends three bad records, writer-c one, and a record comes without a key
        handler.handle(record("writer-b", "not json"));
        handler.handle(record("writer-b", "{\"atMs\": 1, \"windowMs\": 1000, \"writes\": 5}"));
        handler.handle(record("writer-b", null));
        handler.handle(record("writer-c", "{\"atMs\": 1, \"windowMs\": 0, \"writes\": 5, \"errors\": 0}"));
        handler.handle(record(null, "{\"atMs\": 1, \"windowMs\": 1000, \"writes\": 5, \"errors\": 0}"));

        // Then: five counted, none handed on; one warning per writer, naming it, where the record is and what is wrong
        assertThat(handler.malformedRecords()).isEqualTo(5);
        assertThat(handedOn).isEmpty();
        assertThat(warnings()).hasSize(3);
        assertThat(warnings().get(0)).contains("writer-b", "db-feedback-0@0", "not JSON");
        assertThat(warnings().get(1)).contains("writer-c", "windowMs must be > 0");
        assertThat(warnings().get(2)).contains(FeedbackRecordHandler.NO_WRITER, "record key");
    }

    @Test
    void shouldGoOnWithTheNextRecordWhenTheSinkFails() {
        // Given: a sink that fails on its first report
        List<String> taken = new ArrayList<>();
        FeedbackRecordHandler failingOnce = new FeedbackRecordHandler((writer, report, at) -> {
            if (taken.isEmpty() && writer.equals("writer-a")) {
                taken.add("failed");
                throw new IllegalStateException("a bug downstream");
            }
            taken.add(writer);
        }, () -> NOW_MS, TIMEOUT_MS);
        String value = "{\"atMs\": 1, \"windowMs\": 1000, \"writes\": 5, \"errors\": 0}";

        // When: two good records come
        failingOnce.handle(record("writer-a", value));
        failingOnce.handle(record("writer-b", value));

        // Then: the failure stays inside; the next record is handed on
        assertThat(taken).containsExactly("failed", "writer-b");
        assertThat(failingOnce.reports()).isEqualTo(1);
    }
}
