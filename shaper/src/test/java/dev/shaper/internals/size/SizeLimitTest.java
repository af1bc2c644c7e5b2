package dev.shaper.internals.size;

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
    void shouldKeepSlackWhenTheProducerOrTheTopicCompresses() {
        Config plain = new Config(List.of(new ConfigEntry("max.message.bytes", "64000"),
                new ConfigEntry("compression.type", "producer")));
        Config zstd = new Config(List.of(new ConfigEntry("max.message.bytes", "64000"),
                new ConfigEntry("compression.type", "zstd")));

        assertThat(TopicSizeLimits.limitOf("t", plain, false).bytes()).isEqualTo(64_000);
        assertThat(TopicSizeLimits.limitOf("t", plain, true).bytes()).isEqualTo(63_000);
        assertThat(TopicSizeLimits.limitOf("t", zstd, false).bytes()).isEqualTo(63_000);
        assertThat(TopicSizeLimits.limitOf("t", zstd, false).source()).contains("reserve for compression");
    }
}
