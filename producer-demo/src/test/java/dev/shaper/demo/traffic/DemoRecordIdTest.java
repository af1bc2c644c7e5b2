package dev.shaper.demo.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.testsupport.RecordId;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DemoRecordIdTest {

    @Test
    void shouldReadBackWhatItWrote() {
        DemoRecordId id = new DemoRecordId("ab12cd34", "tenant:7", 42);

        assertThat(DemoRecordId.parse(id.toValue(100))).isEqualTo(id);
        assertThat(id.toValue(100)).hasSize(100);
        assertThat(id.toValue(5)).asString(StandardCharsets.UTF_8).isEqualTo("tenant:7:42|ab12cd34|");
    }

    @Test
    void shouldBeReadableAsTheShaperTestsRecordId() {
        // The shaper's own verifiers (shaper-test-support) read these values: the formats must stay compatible.
        byte[] value = new DemoRecordId("run", "k3", 9).toValue(64);

        assertThat(RecordId.parse(value)).isEqualTo(new RecordId("k3", 9));
    }

    @Test
    void shouldNameTheExpectedFormatForAForeignValue() {
        assertThatThrownBy(() -> DemoRecordId.parse("hello".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected <key>:<seq>|<run>|");
        assertThatThrownBy(() -> DemoRecordId.parse(null)).hasMessageContaining("no value");
    }

    @Test
    void shouldRefuseSeparatorsInRunAndKey() {
        assertThatThrownBy(() -> new DemoRecordId("a|b", "k", 0)).hasMessageContaining("run");
        assertThatThrownBy(() -> new DemoRecordId("a:b", "k", 0)).hasMessageContaining("run");
        assertThatThrownBy(() -> new DemoRecordId("run", "k|1", 0)).hasMessageContaining("key");
    }
}
