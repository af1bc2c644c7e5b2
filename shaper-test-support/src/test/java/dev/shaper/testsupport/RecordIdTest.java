package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordIdTest {

    @Test
    void shouldReadBackTheIdWhenTheValueIsBare() {
        RecordId id = new RecordId("key-3", 42);

        assertThat(new String(id.toValue(), StandardCharsets.UTF_8)).isEqualTo("key-3:42");
        assertThat(RecordId.parse(id.toValue())).isEqualTo(id);
    }

    @Test
    void shouldReadBackTheIdWhenTheValueIsPaddedToAFixedSize() {
        RecordId id = new RecordId("tenant:7", 1234);

        byte[] value = id.toValue(64);

        assertThat(value).hasSize(64);
        assertThat(RecordId.parse(value)).isEqualTo(id);
    }

    @Test
    void shouldRefuseTheValueWhenItHoldsNoId() {
        assertThatThrownBy(() -> RecordId.parse("hello".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordId.parse("key:x".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordId.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldOrderIdsByKeyThenSequence() {
        assertThat(new RecordId("a", 10)).isLessThan(new RecordId("b", 0));
        assertThat(new RecordId("a", 2)).isLessThan(new RecordId("a", 10));
    }

    @Test
    void shouldHashTheIdsOfCloseKeysApartSoThatLargeSetsBuildQuickly() {
        java.util.List<RecordId> ids = Workload.interleaved(200, 0, 2_000);

        // A linear combination of the fields' hash codes (a record's default) did not finish in 2 minutes here.
        java.util.Set<RecordId> set = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(30), () -> java.util.Set.copyOf(ids));

        assertThat(set).hasSize(400_000);
    }
}
