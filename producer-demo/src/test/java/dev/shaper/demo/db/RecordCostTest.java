package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RecordCostTest {

    private static ConsumerRecord<String, byte[]> record(String... costs) {
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("shaped", 0, 0, "k", new byte[0]);
        for (String cost : costs) {
            record.headers().add(ShaperHeaders.COST, cost.getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }

    @Test
    void shouldCountOneUnitWhenTheRecordHasNoCostHeader() {
        assertThat(RecordCost.of(record())).isEqualTo(1);
    }

    @Test
    void shouldReadTheLastCostHeaderWhenItIsAWholeNumber() {
        assertThat(RecordCost.of(record("3"))).isEqualTo(3);
        assertThat(RecordCost.of(record("2", "1000000"))).isEqualTo(1_000_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "-2", "1.5", "abc", " 4", "1000001", "99999999999999999999"})
    void shouldCountOneUnitWhenTheCostHeaderIsNotAValidCost(String cost) {
        assertThat(RecordCost.of(record(cost))).isEqualTo(1);
    }
}
