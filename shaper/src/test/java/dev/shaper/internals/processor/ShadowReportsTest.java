package dev.shaper.internals.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperHeaders;
import dev.shaper.internals.limits.SizeLimit;
import dev.shaper.internals.limits.TimestampWindow;
import dev.shaper.internals.metrics.ShaperMetrics;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** A report of the shadow topic always fits it: the key is left out when it would not, and the timestamp replaced. */
class ShadowReportsTest {

    private static final long NOW = 1_700_000_000_000L;
    /** The shadow topic takes 2,000 bytes, and timestamps up to an hour old. */
    private final ShadowReports reports = new ShadowReports("shadow-sink", SizeLimit.topic("shadow", 2_000),
            new TimestampWindow(3_600_000L, 3_600_000L, "topic shadow's"), ShaperMetrics.inMemory());

    private static String header(Record<byte[], byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static RecordHeaders decision() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(ShaperHeaders.SHADOW_DECISION, "queue".getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    @Test
    void shouldKeepTheKeyAndTheTimestampWhenTheyFit() {
        Record<byte[], byte[]> record = new Record<>(new byte[100], new byte[50_000], NOW - 1_000);

        Record<byte[], byte[]> report = reports.report(record, decision(), Optional.empty(), NOW);

        assertThat(report.key()).hasSize(100);
        assertThat(report.value()).isNull(); // never the value, however large
        assertThat(report.timestamp()).isEqualTo(NOW - 1_000);
        assertThat(header(report, ShaperHeaders.OMITTED)).isNull();
    }

    @Test
    void shouldLeaveOutAKeyTooLargeForTheShadowTopicAndReplaceATimestampItWouldRefuse() {
        Record<byte[], byte[]> record = new Record<>(new byte[3_000], null, NOW - 7_200_000L);

        Record<byte[], byte[]> report = reports.report(record, decision(), Optional.empty(), NOW);

        assertThat(report.key()).isNull();
        assertThat(header(report, ShaperHeaders.OMITTED)).isEqualTo("key");
        assertThat(header(report, ShaperHeaders.SHADOW_DECISION)).isEqualTo("queue");
        assertThat(report.timestamp()).isEqualTo(NOW);
    }

    @Test
    void shouldKeepOnlyTheDecisionForATopicThatTakesLessThanItsDetail() {
        ShadowReports tiny = new ShadowReports("shadow-sink", SizeLimit.topic("shadow", 300), TimestampWindow.ANY,
                ShaperMetrics.inMemory());
        RecordHeaders headers = decision();
        headers.add(ShaperHeaders.DETAIL, "x".repeat(1_000).getBytes(StandardCharsets.UTF_8));
        Record<byte[], byte[]> record = new Record<>(new byte[10], null, NOW);

        Record<byte[], byte[]> report = tiny.report(record, headers, Optional.empty(), NOW);

        assertThat(report.key()).isNull();
        assertThat(header(report, ShaperHeaders.DETAIL)).isNull();
        assertThat(header(report, ShaperHeaders.OMITTED)).isEqualTo("key,detail,source");
        assertThat(header(report, ShaperHeaders.SHADOW_DECISION)).isEqualTo("queue");
        assertThat(dev.shaper.internals.limits.RecordSize.of(null, null, report.headers())).isLessThanOrEqualTo(300);
    }
}
