package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperHeaders;
import org.junit.jupiter.api.Test;

/** The test support's copies of the header names are the shaper's: a renamed header fails here, not in a verifier. */
class OutputHeadersTest {

    @Test
    void copiesEqualTheShapersHeaderNames() {
        assertThat(OutputHeaders.QUEUED_MS).isEqualTo(ShaperHeaders.QUEUED_MS);
        assertThat(OutputHeaders.RELEASED_MS).isEqualTo(ShaperHeaders.RELEASED_MS);
        assertThat(OutputHeaders.REASON).isEqualTo(ShaperHeaders.REASON);
        assertThat(OutputHeaders.RETRY_AFTER_MS).isEqualTo(ShaperHeaders.RETRY_AFTER_MS);
    }
}
