package dev.shaper.internals.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class GrouplessConsumerTest {

    @Test
    void keepsTheWayToTheClusterAndDropsTheGroupAndTheDeserializers() {
        Map<String, Object> settings = GrouplessConsumer.settings(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092",
                "security.protocol", "SSL",
                ConsumerConfig.GROUP_ID_CONFIG, "shaper",
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "shaper-1",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, "x",
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "y",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true), "reader");

        assertThat(settings).containsOnly(
                Map.entry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092"),
                Map.entry("security.protocol", "SSL"),
                Map.entry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                Map.entry(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false),
                Map.entry(ConsumerConfig.CLIENT_ID_CONFIG, "reader"));
    }

    @Test
    void keepsAClientIdThatIsSetAndMayBeAddedTo() {
        Map<String, Object> settings = GrouplessConsumer.settings(
                Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "mine"), "reader");
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");

        assertThat(settings).containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "mine")
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    }
}
