package dev.shaper.internals.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.limits.RecordSize;
import dev.shaper.internals.limits.SizeLimit;
import dev.shaper.internals.limits.TimestampWindow;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

class RejectionsTest {

    private static final SizeLimit LIMIT = SizeLimit.topic("rejected", 4_000);
    /** The rejected topic takes timestamps up to a day old and an hour ahead. */
    private static final TimestampWindow TIMES = new TimestampWindow(86_400_000L, 3_600_000L, "topic rejected's");
    private static final long NOW = 1_700_000_000_000L;
    private final Rejections rejections = new Rejections("rejected-sink", LIMIT, TIMES);

    private static Record<byte[], byte[]> record(int keyBytes, int valueBytes, int headerBytes) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", new byte[headerBytes]);
        return new Record<>(new byte[keyBytes], new byte[valueBytes], NOW - 5_000, headers);
    }

    private static String header(Record<byte[], byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private Record<byte[], byte[]> reject(Record<byte[], byte[]> record) {
        return rejections.reject(record, RejectReason.QUEUE_FULL, 250, "queue full", Optional.empty(), NOW);
    }

    @Test
    void shouldKeepARecordWholeWhenItFits() {
        Record<byte[], byte[]> rejected = reject(record(10, 1_000, 10));

        assertThat(rejected.value()).hasSize(1_000);
        assertThat(header(rejected, ShaperHeaders.REASON)).isEqualTo("QUEUE_FULL");
        assertThat(header(rejected, ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("250");
        assertThat(header(rejected, ShaperHeaders.OMITTED)).isNull();
        assertThat(header(rejected, "trace")).isNotNull();
        assertThat(rejected.timestamp()).isEqualTo(NOW - 5_000);
    }

    @Test
    void shouldStampARecordWithTheRejectionsTimeWhenTheRejectedTopicWouldRefuseItsOwn() {
        Record<byte[], byte[]> old = record(1, 10, 1).withTimestamp(NOW - 2 * 86_400_000L);

        Record<byte[], byte[]> rejected = rejections.reject(old, RejectReason.INVALID_TIMESTAMP, 0, "too old",
                Optional.empty(), NOW);

        assertThat(rejected.timestamp()).isEqualTo(NOW);
        assertThat(header(rejected, ShaperHeaders.DETAIL)).startsWith("too old; stamped with the time of the"
                + " rejection").contains(Long.toString(NOW - 2 * 86_400_000L));
    }

    @Test
    void shouldLeaveOutTheValueThenTheKeyThenTheHeadersUntilItFits() {
        Record<byte[], byte[]> noValue = reject(record(10, 5_000, 10));
        Record<byte[], byte[]> noKey = reject(record(5_000, 5_000, 10));
        Record<byte[], byte[]> bare = reject(record(5_000, 5_000, 5_000));

        assertThat(noValue.value()).isNull();
        assertThat(noValue.key()).hasSize(10);
        assertThat(header(noValue, ShaperHeaders.OMITTED)).isEqualTo("value");
        assertThat(header(noValue, ShaperHeaders.DETAIL)).startsWith("queue full; the rejected topic takes at most"
                + " 4000 bytes (max.message.bytes of topic rejected (4000))").contains("value (5000 bytes) is left out");
        assertThat(noKey.key()).isNull();
        assertThat(header(noKey, ShaperHeaders.OMITTED)).isEqualTo("value,key");
        assertThat(header(bare, ShaperHeaders.OMITTED)).isEqualTo("value,key,headers");
        assertThat(header(bare, "trace")).isNull();
        assertThat(header(bare, ShaperHeaders.REASON)).isEqualTo("QUEUE_FULL");
        for (Record<byte[], byte[]> r : java.util.List.of(noValue, noKey, bare)) {
            assertThat(RecordSize.of(r.key(), r.value(), r.headers())).isLessThanOrEqualTo(LIMIT.bytes());
        }
    }

    @Test
    void shouldCutALongDetailButKeepWhatWasLeftOut() {
        String longDetail = "x".repeat(5_000);
        Record<byte[], byte[]> rejected = rejections.reject(record(10, 5_000, 10), RejectReason.INVALID_COST, 0,
                longDetail, Optional.empty(), NOW);

        assertThat(header(rejected, ShaperHeaders.DETAIL)).hasSizeLessThan(1_400).contains("...; the rejected topic")
                .endsWith("is left out");
        assertThat(header(rejected, ShaperHeaders.RETRY_AFTER_MS)).isNull();
    }
}
