package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.testsupport.CollectedRecord.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShapedOutputVerifierTest {

    private static final long MS = 1_000_000L;

    private static CollectedRecord output(String key, long seq, long arrivalMs) {
        return new CollectedRecord(Topic.OUTPUT, key, new RecordId(key, seq), arrivalMs * MS, null, null, 0L, null, null, null);
    }

    private static CollectedRecord rejected(String key, long seq, String reason) {
        return new CollectedRecord(Topic.REJECTED, key, new RecordId(key, seq), 0, null, null, null, reason, null, null);
    }

    @Test
    void shouldReportExactlyOnceWhenEveryIdArrivesOnce() {
        // Given
        List<RecordId> expected = Workload.interleaved(2, 0, 3);
        List<CollectedRecord> read = new ArrayList<>();
        for (RecordId id : expected) {
            read.add(output(id.key(), id.seq(), id.seq() * 10));
        }

        // When
        VerificationReport report = ShapedOutputVerifier.verify(expected, read);

        // Then
        assertThat(report.isExactlyOnce()).isTrue();
        assertThat(report.orderViolations()).isEmpty();
        assertThat(report.keys()).containsOnlyKeys("key-0", "key-1");
        assertThat(report.keys().get("key-0").count()).isEqualTo(3);
        assertThat(report.keys().get("key-0").fittedRate()).isCloseTo(100.0, within(1e-6));
    }

    @Test
    void shouldReportMissingDuplicatedAndUnexpectedIdsWhenTheOutputIsWrong() {
        // Given: key-0:1 missing, key-0:0 in output and rejected, key-9:0 never produced, key-0:2 under key-1
        List<RecordId> expected = Workload.interleaved(1, 0, 3);
        List<CollectedRecord> read = List.of(
                output("key-0", 0, 0),
                rejected("key-0", 0, "QUEUE_FULL"),
                output("key-9", 0, 5),
                new CollectedRecord(Topic.OUTPUT, "key-1", new RecordId("key-0", 2), 0, null, null, 0L, null, null, null),
                new CollectedRecord(Topic.OUTPUT, "key-1", null, 0, null, null, null, null, null, "not a record id"));

        // When
        VerificationReport report = ShapedOutputVerifier.verify(expected, read);

        // Then
        assertThat(report.isExactlyOnce()).isFalse();
        assertThat(report.missing()).containsExactly(new RecordId("key-0", 1), new RecordId("key-0", 2));
        assertThat(report.duplicates()).containsExactlyEntriesOf(Map.of(new RecordId("key-0", 0), 2));
        assertThat(report.unexpected()).hasSize(3);
        assertThat(report.rejectedByReason()).containsExactlyEntriesOf(Map.of("QUEUE_FULL", 1));
    }

    @Test
    void shouldReportAnOrderViolationWhenAKeysSequenceGoesBackInTheOutput() {
        // Given: key-0 released 0, 2, 1 (a rejected record in between does not count)
        List<RecordId> expected = Workload.interleaved(1, 0, 4);
        List<CollectedRecord> read = List.of(output("key-0", 0, 0), output("key-0", 2, 10),
                rejected("key-0", 3, "DELAY_EXCEEDED"), output("key-0", 1, 20));

        // When
        VerificationReport report = ShapedOutputVerifier.verify(expected, read);

        // Then
        assertThat(report.isExactlyOnce()).isTrue();
        assertThat(report.orderViolations()).containsExactly("key-0: seq 1 after seq 2");
    }

    @Test
    void shouldCountTheDensestSecondPerKeyWhenOutputArrivesInBursts() {
        // Given: key-0 has 12 records at 0 ms and 3 at 1500 ms; key-1 one every 100 ms
        List<RecordId> expected = new ArrayList<>();
        List<CollectedRecord> read = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            expected.add(new RecordId("key-0", i));
            read.add(output("key-0", i, i < 12 ? 0 : 1500));
            expected.add(new RecordId("key-1", i));
            read.add(output("key-1", i, i * 100L));
        }

        // When
        VerificationReport report = ShapedOutputVerifier.verify(expected, read);

        // Then
        assertThat(report.keys().get("key-0").maxInWindow()).isEqualTo(12);
        assertThat(report.keys().get("key-1").maxInWindow()).isEqualTo(10);
        assertThat(report.maxInWindow()).isEqualTo(12);
    }
}
