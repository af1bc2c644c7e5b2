package dev.shaper.feedback;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The reporter's windows, on a clock the test moves, sent to Kafka's own mock producer. */
class FeedbackReporterTest {

    private final AtomicLong clock = new AtomicLong(1_764_000_000_000L);
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final FeedbackReporter reporter = new FeedbackReporter(producer, false, "feedback", "writer-1",
            clock::get);

    @Test
    void shouldReportTheWindowsWritesErrorsAndP99Latency() throws Exception {
        // Given: 100 writes of 2 units, 1..100 ms, the slowest one failed
        for (int ms = 1; ms <= 100; ms++) {
            reporter.recordWrite(2, ms * 1_000_000L, ms != 100);
        }
        clock.addAndGet(1_000);

        // When: the window ends
        FeedbackReport report = reporter.publishWindow();

        // Then: one record keyed by the writer, with the window's figures
        assertThat(report).isEqualTo(new FeedbackReport(clock.get(), 1_000, 198, 2, 99.0));
        assertThat(producer.history()).hasSize(1);
        ProducerRecord<byte[], byte[]> sent = producer.history().get(0);
        assertThat(sent.topic()).isEqualTo("feedback");
        assertThat(new String(sent.key(), StandardCharsets.UTF_8)).isEqualTo("writer-1");
        assertThat(FeedbackReport.parse(sent.value())).isEqualTo(report);
    }

    @Test
    void shouldStartEachWindowAfreshAndReportAQuietOneWithoutLatency() {
        reporter.recordWrite(1, 5_000_000L, true);
        clock.addAndGet(500);
        reporter.publishWindow();
        clock.addAndGet(700);

        FeedbackReport quiet = reporter.publishWindow();

        assertThat(quiet).isEqualTo(new FeedbackReport(clock.get(), 700, 0, 0, null));
    }

    @Test
    void shouldKeepTheP99WithinTheSampledLatenciesWhenAWindowHasMoreWritesThanItKeeps() {
        // Given: ten times more writes than samples kept, 1 % of them at 1 s and the rest at 1 ms
        int count = FeedbackReporter.MAX_SAMPLES * 10;
        for (int i = 0; i < count; i++) {
            reporter.recordWrite(1, i % 100 == 0 ? 1_000_000_000L : 1_000_000L, true);
        }
        clock.addAndGet(1_000);

        FeedbackReport report = reporter.publishWindow();

        // Then: every write counted; the p99 is one of the two latencies written
        assertThat(report.writes()).isEqualTo(count);
        assertThat(report.latencyP99Ms()).isIn(1.0, 1_000.0);
    }

    @Test
    void shouldPublishTheLastWindowOnClose() {
        reporter.recordWrite(3, 1_000_000L, false);
        clock.addAndGet(200);

        reporter.close();

        assertThat(producer.history()).hasSize(1);
        assertThat(producer.closed()).isFalse(); // not its own producer
    }
}
