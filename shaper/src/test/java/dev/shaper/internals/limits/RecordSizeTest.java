package dev.shaper.internals.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** The bound against what Kafka's own record format takes for a batch of one record. */
class RecordSizeTest {

    @Test
    void shouldNeverFallShortOfKafkasOwnSizeAndExceedItByLittle() {
        int[] lengths = {0, 1, 63, 64, 127, 128, 8_191, 8_192, 16_383, 16_384, 300_000, 1_048_000};
        for (int keyLength : new int[] {0, 5, 200}) {
            for (int valueLength : lengths) {
                for (int headerCount : new int[] {0, 1, 7}) {
                    byte[] key = new byte[keyLength];
                    byte[] value = new byte[valueLength];
                    Header[] headers = new Header[headerCount];
                    for (int i = 0; i < headerCount; i++) {
                        headers[i] = new RecordHeader("header-é-" + i, new byte[i * 40]);
                    }
                    int kafka = MemoryRecords.withRecords(Compression.NONE,
                            new SimpleRecord(System.currentTimeMillis(), key, value, headers)).sizeInBytes();

                    long bound = RecordSize.of(key, value, new RecordHeaders(headers));

                    assertThat(bound).as("key %d, value %d, headers %d", keyLength, valueLength, headerCount)
                            .isGreaterThanOrEqualTo(kafka).isLessThanOrEqualTo(kafka + 64L + 8L * headerCount);
                }
            }
        }
    }

    @Test
    void shouldCountHeaderNamesInUtf8() {
        for (String name : new String[] {"ascii", "é", "€uro", "emoji \uD83D\uDE00", ""}) {
            RecordHeaders headers = new RecordHeaders(new Header[] {new RecordHeader(name, new byte[3])});
            assertThat(RecordSize.headerBytes(headers)).as(name)
                    .isEqualTo(RecordSize.header(name.getBytes(StandardCharsets.UTF_8).length, 3));
        }
    }
}
