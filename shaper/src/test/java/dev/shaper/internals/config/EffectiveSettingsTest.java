package dev.shaper.internals.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class EffectiveSettingsTest {

    @Test
    void shouldListEverySettingSortedWithSecretsMasked() {
        Properties settings = new Properties();
        settings.put("shaper.shaping.rate", "50");
        settings.put("bootstrap.servers", "kafka:9092");
        settings.put("shaper.redis.uri", "rediss://shaper:S3cret-pw@redis:6380/0");
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"shaper\" password=\"kafka-pw\";");
        settings.put("ssl.truststore.password", "trust-pw");
        settings.put("producer.ssl.key.password", "key-pw");
        settings.put("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----");

        String line = EffectiveSettings.describe(settings);

        assertThat(line).startsWith("bootstrap.servers=kafka:9092, ")
                .contains("shaper.shaping.rate=50", "shaper.redis.uri=rediss://shaper:[hidden]@redis:6380/0",
                        "sasl.jaas.config=[hidden]", "ssl.truststore.password=[hidden]",
                        "producer.ssl.key.password=[hidden]", "ssl.keystore.key=[hidden]")
                .doesNotContain("S3cret-pw", "kafka-pw", "trust-pw", "key-pw", "PRIVATE KEY");
    }

    @Test
    void shouldLeaveAUriWithoutAPasswordAsItIs() {
        Properties settings = new Properties();
        settings.put("shaper.redis.uri", "redis://redis:6379");
        assertThat(EffectiveSettings.describe(settings)).isEqualTo("shaper.redis.uri=redis://redis:6379");
    }
}
