package dev.shaper.internals.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.ShaperHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class CostHeaderTest {

    private static RecordHeaders costs(String... values) {
        RecordHeaders headers = new RecordHeaders();
        for (String v : values) {
            headers.add(ShaperHeaders.COST, v.getBytes(StandardCharsets.UTF_8));
        }
        return headers;
    }

    @Test
    void shouldReadPlainAsciiDigitsFromOneToTheMaximum() throws Exception {
        assertThat(CostHeader.read(new RecordHeaders())).isEqualTo(1);
        assertThat(CostHeader.read(costs("3"))).isEqualTo(3);
        assertThat(CostHeader.read(costs("1000000"))).isEqualTo(ShaperHeaders.MAX_COST);
    }

    @Test
    void shouldRefuseSignsSpacesAndOtherScriptsDigits() {
        for (String text : new String[] {" 3", "3 ", "+3", "-3", "３", "٣", "3.0", "0x3", ""}) {
            assertThatThrownBy(() -> CostHeader.read(costs(text))).as("\"%s\"", text)
                    .isInstanceOf(CostHeader.InvalidCostException.class).hasMessageContaining(ShaperHeaders.COST);
        }
    }

    @Test
    void shouldRefuseNumbersOutOfRangeWithoutOverflowing() {
        for (String text : new String[] {"0", "1000001", "99999999999999999999999999999"}) {
            assertThatThrownBy(() -> CostHeader.read(costs(text))).as(text)
                    .isInstanceOf(CostHeader.InvalidCostException.class)
                    .hasMessageContaining("expected a whole number from 1 to 1000000");
        }
    }

    @Test
    void shouldRefuseTwoCostHeadersInsteadOfTakingTheLast() {
        assertThatThrownBy(() -> CostHeader.read(costs("1", "5")))
                .isInstanceOf(CostHeader.InvalidCostException.class)
                .hasMessage("2 shaper.cost headers; expected at most one, a whole number from 1 to 1000000");
    }
}
