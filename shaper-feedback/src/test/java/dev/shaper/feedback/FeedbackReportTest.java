package dev.shaper.feedback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class FeedbackReportTest {

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadTheDocumentedFormatAndIgnoreUnknownFields() throws Exception {
        FeedbackReport report = FeedbackReport.parse(utf8("{\"atMs\": 1764000000000, \"windowMs\": 1000,"
                + " \"writes\": 950, \"errors\": 3, \"latencyP99Ms\": 42.5, \"db\": \"orders\"}"));

        assertThat(report).isEqualTo(new FeedbackReport(1764000000000L, 1000, 950, 3, 42.5));
        assertThat(report.errorRatio()).isEqualTo(3.0 / 953);
    }

    @Test
    void shouldWriteWhatItReads() throws Exception {
        FeedbackReport report = new FeedbackReport(1764000000000L, 500, 10, 0, null);

        assertThat(FeedbackReport.parse(report.toJson())).isEqualTo(report);
        assertThat(new String(report.toJson(), StandardCharsets.UTF_8)).doesNotContain("latencyP99Ms");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "not json at all                                                     | not JSON",
        "[1, 2]                                                              | not a JSON object",
        "{\"windowMs\": 1000, \"writes\": 1, \"errors\": 0}                  | field \"atMs\" is missing",
        "{\"atMs\": \"soon\", \"windowMs\": 1000, \"writes\": 1, \"errors\": 0} | field \"atMs\" must be a whole number",
        "{\"atMs\": 1, \"windowMs\": 0, \"writes\": 1, \"errors\": 0}        | windowMs must be > 0",
        "{\"atMs\": 1, \"windowMs\": 10, \"writes\": -1, \"errors\": 0}      | writes and errors must be >= 0",
        "{\"atMs\": 1, \"windowMs\": 10, \"writes\": 1, \"errors\": 0, \"latencyP99Ms\": \"slow\"} | must be a number",
        "{\"atMs\": 1, \"windowMs\": 10, \"writes\": 1, \"errors\": 0, \"latencyP99Ms\": -5} | finite number >= 0"})
    void shouldSayWhatIsWrongWithAMalformedReport(String value, String why) {
        assertThatThrownBy(() -> FeedbackReport.parse(utf8(value)))
                .isInstanceOf(MalformedFeedbackException.class).hasMessageContaining(why);
    }

    @Test
    void shouldRefuseANullValue() {
        assertThatThrownBy(() -> FeedbackReport.parse(null)).isInstanceOf(MalformedFeedbackException.class)
                .hasMessage("no value");
    }
}
