package dev.shaper.internals.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperHeaders;
import dev.shaper.internals.metrics.ShaperMetrics;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.Result;
import org.junit.jupiter.api.Test;

class OversizedRecordHandlerTest {

    private final OversizedRecordHandler handler = new OversizedRecordHandler();

    {
        handler.configure(Map.of("shaper.output.topic", "out", "shaper.rejected.topic", "rej",
                "bootstrap.servers", "ignored:9092"));
    }

    private static ProducerRecord<byte[], byte[]> record(String topic) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, 42L,
                "k".getBytes(StandardCharsets.UTF_8), new byte[2_000_000]);
        r.headers().add("trace", "t1".getBytes(StandardCharsets.UTF_8));
        return r;
    }

    @Test
    void shouldSendATooLargeShapedRecordToTheRejectedTopicWithoutItsValue() {
        var response = handler.handleError(null, record("out"), new RecordTooLargeException("too big"));
        assertThat(response.result()).isEqualTo(Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).singleElement().satisfies(r -> {
            assertThat(r.topic()).isEqualTo("rej");
            assertThat(r.value()).isNull();
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("k");
            assertThat(r.timestamp()).isEqualTo(42L);
            assertThat(new String(r.headers().lastHeader(ShaperHeaders.REASON).value(), StandardCharsets.UTF_8))
                    .isEqualTo("INVALID_RECORD");
            assertThat(new String(r.headers().lastHeader(ShaperHeaders.DETAIL).value(), StandardCharsets.UTF_8))
                    .contains("2000000 bytes").contains("too large for topic out");
            assertThat(r.headers().lastHeader("trace")).isNotNull();
        });
    }

    @Test
    void shouldCountTheRejectionInTheMetricsTheApplicationHandsOver() {
        // Given: the application's metrics in the settings, as ShaperApplication passes them
        ShaperMetrics metrics = ShaperMetrics.inMemory();
        OversizedRecordHandler withMetrics = new OversizedRecordHandler();
        withMetrics.configure(Map.of("shaper.output.topic", "out", "shaper.rejected.topic", "rej",
                "bootstrap.servers", "ignored:9092", ShaperMetrics.SETTINGS_KEY, metrics));
        // When: a shaped record is too large, and another error is not ours
        withMetrics.handleError(null, record("out"), new RecordTooLargeException("too big"));
        withMetrics.handleError(null, record("out"), new SerializationException("x"));
        // Then: one INVALID_RECORD rejection is counted
        assertThat(metrics.registry().get(ShaperMetrics.REJECTED).tag("reason", "INVALID_RECORD").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldBehaveLikeKafkasDefaultForEverythingElse() {
        assertThat(handler.handleError(null, record("rej"), new RecordTooLargeException("x")).result())
                .isEqualTo(Result.FAIL);
        assertThat(handler.handleError(null, record("out"), new SerializationException("x")).result())
                .isEqualTo(Result.FAIL);
        assertThat(handler.handleError(null, record("out"), new NotEnoughReplicasException("x")).result())
                .isEqualTo(Result.RETRY);
    }
}
