package dev.shaper.internals.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.junit.jupiter.api.Test;

class SizeLimitTest {

    @Test
    void shouldTakeTheStricterLimitAndSayWhatSetsIt() {
        SizeLimit producer = SizeLimit.producer(1_048_576);
        SizeLimit topic = SizeLimit.topic("shaped", 200_000);

        assertThat(producer.min(topic)).isEqualTo(topic);
        assertThat(topic.min(producer)).isEqualTo(topic);
        assertThat(topic.source()).isEqualTo("max.message.bytes of topic shaped (200000)");
        assertThat(topic.fits(200_000)).isTrue();
        assertThat(topic.fits(200_001)).isFalse();
    }

    @Test
    void shouldReadATopicsTimestampWindowAndTakeAnyTimestampUnderLogAppendTime() {
        Config createTime = new Config(List.of(new ConfigEntry("message.timestamp.type", "CreateTime"),
                new ConfigEntry("message.timestamp.before.max.ms", "3600000"),
                new ConfigEntry("message.timestamp.after.max.ms", "60000")));
        Config appendTime = new Config(List.of(new ConfigEntry("message.timestamp.type", "LogAppendTime"),
                new ConfigEntry("message.timestamp.before.max.ms", "1")));
        long now = 1_700_000_000_000L;

        TimestampWindow window = TimestampWindow.of("t", createTime);

        assertThat(window.takes(now - 3_600_000, now, 0)).isTrue();
        assertThat(window.takes(now - 3_600_001, now, 0)).isFalse();
        assertThat(window.takes(now + 60_000, now, 0)).isTrue();
        assertThat(window.takes(now + 60_001, now, 0)).isFalse();
        assertThat(window.takes(now - 3_599_000, now, 1_000)).isTrue();
        assertThat(window.takes(now - 3_599_001, now, 1_000)).isFalse();
        assertThat(window.takes(now + 60_000, now, 1_000)).as("no margin on the future side").isTrue();
        TimestampWindow narrow = new TimestampWindow(100, 0, "narrow");
        assertThat(narrow.takes(now - 50, now, 60_000)).as("a margin of at most half the window").isTrue();
        assertThat(narrow.takes(now - 51, now, 60_000)).isFalse();
        assertThat(narrow.takes(now, now, 60_000)).isTrue();
        assertThat(TimestampWindow.of("t", appendTime)).isEqualTo(TimestampWindow.ANY);
        assertThat(TimestampWindow.ANY.takes(0, now, 60_000)).isTrue();
        assertThat(TimestampWindow.ANY.takes(Long.MAX_VALUE, 0, 60_000)).isTrue();
        assertThat(window.and(TimestampWindow.ANY)).isEqualTo(window);
        assertThat(window.and(new TimestampWindow(Long.MAX_VALUE, 10, "c")))
                .extracting(TimestampWindow::beforeMaxMs, TimestampWindow::afterMaxMs).containsExactly(3_600_000L, 10L);
    }

    @Test
    void shouldKeepSlackWhenTheProducerOrTheTopicCompresses() {
        Config plain = new Config(List.of(new ConfigEntry("max.message.bytes", "64000"),
                new ConfigEntry("compression.type", "producer")));
        Config zstd = new Config(List.of(new ConfigEntry("max.message.bytes", "64000"),
                new ConfigEntry("compression.type", "zstd")));

        assertThat(TopicLimitsReader.limitOf("t", plain, false).bytes()).isEqualTo(64_000);
        assertThat(TopicLimitsReader.limitOf("t", plain, true).bytes()).isEqualTo(63_000);
        assertThat(TopicLimitsReader.limitOf("t", zstd, false).bytes()).isEqualTo(63_000);
        assertThat(TopicLimitsReader.limitOf("t", zstd, false).source()).contains("reserve for compression");
    }
}
