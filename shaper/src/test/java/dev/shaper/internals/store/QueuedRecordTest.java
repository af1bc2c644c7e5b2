package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** A queued record keeps its deadline, and records stored by earlier releases still read. */
class QueuedRecordTest {

    private static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

    private static RecordHeaders headers() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("h", "x".getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    @Test
    void shouldKeepADeadlineAndReadItWithoutDecodingTheRest() {
        byte[] encoded = new QueuedRecord(11, 22, 3, 1_767_225_600_000L, headers(), VALUE).encode();

        QueuedRecord decoded = QueuedRecord.decode(encoded);
        assertThat(decoded.deadlineMs()).isEqualTo(1_767_225_600_000L);
        assertThat(decoded.timestamp()).isEqualTo(11);
        assertThat(decoded.headers().lastHeader("h").value()).isEqualTo("x".getBytes(StandardCharsets.UTF_8));
        assertThat(decoded.value()).isEqualTo(VALUE);
        assertThat(QueuedRecord.deadlineOf(encoded)).isEqualTo(1_767_225_600_000L);
        assertThat(QueuedRecord.enqueuedWallMsOf(encoded)).isEqualTo(22);
        assertThat(QueuedRecord.costOf(encoded)).isEqualTo(3);
    }

    @Test
    void shouldWriteARecordWithoutADeadlineAsEarlierReleasesDid() {
        byte[] encoded = new QueuedRecord(11, 22, 3, headers(), VALUE).encode();

        assertThat(encoded).isEqualTo(oldFormat());
        assertThat(QueuedRecord.deadlineOf(encoded)).isEqualTo(QueuedRecord.NO_DEADLINE);
    }

    @Test
    void shouldReadARecordWrittenInTheOldFormat() {
        QueuedRecord decoded = QueuedRecord.decode(oldFormat());

        assertThat(decoded.timestamp()).isEqualTo(11);
        assertThat(decoded.enqueuedWallMs()).isEqualTo(22);
        assertThat(decoded.cost()).isEqualTo(3);
        assertThat(decoded.deadlineMs()).isEqualTo(QueuedRecord.NO_DEADLINE);
        assertThat(decoded.headers().lastHeader("h").value()).isEqualTo("x".getBytes(StandardCharsets.UTF_8));
        assertThat(decoded.value()).isEqualTo(VALUE);
        assertThat(QueuedRecord.deadlineOf(oldFormat())).isEqualTo(QueuedRecord.NO_DEADLINE);
    }

    /** Version 1, as the releases before deadlines wrote it, by hand: one header "h" = "x", value "v". */
    private static byte[] oldFormat() {
        return ByteBuffer.allocate(1 + 8 + 8 + 8 + 4 + (4 + 1 + 4 + 1) + (4 + 1)).put((byte) 1).putLong(11).putLong(22)
                .putLong(3).putInt(1).putInt(1).put((byte) 'h').putInt(1).put((byte) 'x').putInt(1).put((byte) 'v')
                .array();
    }
}
