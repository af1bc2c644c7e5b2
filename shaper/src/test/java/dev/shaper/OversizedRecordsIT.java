package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.ShaperInstance;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No record, whatever its size, stops the shaper: each of the ways an oversized record used to fail the stream
 * task (and fail it again after every restart) on a real broker, then ordinary records behind them.
 */
class OversizedRecordsIT {

    private static final String IN = "big-in";
    private static final String OUT = "big-out";
    private static final String REJECTED = "big-rejected";
    /** The output topic takes less than the broker's default, as a team's topic may. */
    private static final int OUTPUT_MAX_MESSAGE_BYTES = 200_000;

    @Test
    @Timeout(180)
    void shouldRejectWhatNoTopicTakesWithItsReasonAndKeepShapingEverythingElse() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopics(1, IN, REJECTED);
            broker.createTopics(1, Map.of("max.message.bytes", Integer.toString(OUTPUT_MAX_MESSAGE_BYTES)), OUT);
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "oversized-it");
            settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, IN);
            settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, OUT);
            settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED);
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 1000);
            settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, 10);
            try (ShaperInstance shaper = ShaperInstance.start(settings);
                 KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers())) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);

                // Given: records that no topic the shaper writes would take whole, between ordinary ones
                send(producer, "k1", "before", 100, null);
                // 1. fits the input topic, but not the output topic's own, smaller limit
                send(producer, "k2", "output-limit", 199_990, null);
                // 2. fits the input topic (the broker's default limit), but not the producer's max.request.size
                //    once the shaper's headers are on it
                send(producer, "k3", "request-limit", 1_048_400, null);
                // 3. an invalid cost on a near-maximum record: its rejected form is too large as well
                send(producer, "k4", "bad-cost", 1_048_400, "x");
                // 4. ordinary records that queue: 2,000 of 20 KB on one key at 1,000/s
                for (int i = 0; i < 2_000; i++) {
                    send(producer, "burst", "burst-" + i, 20_000, null);
                }
                send(producer, "k1", "after", 100, null);
                producer.flush();

                // When: the shaper has handled them all
                List<ConsumerRecord<byte[], byte[]>> shaped = new ArrayList<>();
                List<ConsumerRecord<byte[], byte[]>> rejected = new ArrayList<>();
                try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker.bootstrapServers())) {
                    consumer.subscribe(List.of(OUT, REJECTED));
                    Await.until(() -> shaped.size() + " shaped, " + rejected.size() + " rejected, shaper "
                            + shaper.streams().state(), Duration.ofSeconds(90), () -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            (r.topic().equals(OUT) ? shaped : rejected).add(r);
                        }
                        return shaped.size() + rejected.size() >= 2_005;
                    });
                }

                // Then: the shaper still runs, every ordinary record was shaped, in order, and nothing else
                assertThat(shaper.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
                assertThat(shaped).hasSize(2_002);
                assertThat(shaped.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("k1"))
                        .map(r -> header(r, "id")).toList()).containsExactly("before", "after");
                assertThat(shaped.stream().map(r -> header(r, "id")).filter(id -> id.startsWith("burst-")).toList())
                        .isEqualTo(java.util.stream.IntStream.range(0, 2_000).mapToObj(i -> "burst-" + i).toList());

                // And: each oversized record is in the rejected topic with its reason, its source and, where
                // the whole would not fit there, without its value
                assertThat(rejected).hasSize(3);
                ConsumerRecord<byte[], byte[]> outputLimit = rejected.get(0);
                assertThat(header(outputLimit, "id")).isEqualTo("output-limit");
                assertThat(header(outputLimit, ShaperHeaders.REASON)).isEqualTo("RECORD_TOO_LARGE");
                assertThat(header(outputLimit, ShaperHeaders.DETAIL)).contains("max.message.bytes of topic " + OUT);
                assertThat(outputLimit.value()).hasSize(199_990); // the rejected topic takes it whole
                assertThat(header(outputLimit, ShaperHeaders.SOURCE_OFFSET)).isEqualTo("1");

                ConsumerRecord<byte[], byte[]> requestLimit = rejected.get(1);
                assertThat(header(requestLimit, "id")).isEqualTo("request-limit");
                assertThat(header(requestLimit, ShaperHeaders.REASON)).isEqualTo("RECORD_TOO_LARGE");
                assertThat(requestLimit.value()).isNull();
                assertThat(new String(requestLimit.key(), StandardCharsets.UTF_8)).isEqualTo("k3");
                assertThat(header(requestLimit, ShaperHeaders.OMITTED)).isEqualTo("value");
                assertThat(header(requestLimit, ShaperHeaders.DETAIL)).contains("value (1048400 bytes) is left out");

                ConsumerRecord<byte[], byte[]> badCost = rejected.get(2);
                assertThat(header(badCost, "id")).isEqualTo("bad-cost");
                assertThat(header(badCost, ShaperHeaders.REASON)).isEqualTo("INVALID_COST");
                assertThat(badCost.value()).isNull();
                assertThat(header(badCost, ShaperHeaders.OMITTED)).isEqualTo("value");
                assertThat(header(badCost, ShaperHeaders.SOURCE_OFFSET)).isEqualTo("3");

                // And: the changelog topics were created with room for what the producer may send
                try (Admin admin = broker.admin()) {
                    String changelog = ShaperTopology.changelogTopics("oversized-it").get(0);
                    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
                    Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                            .get(resource);
                    assertThat(config.get("max.message.bytes").value()).isEqualTo("1048588");
                }
            }
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String key, String id, int valueBytes,
                             String cost) {
        byte[] value = new byte[valueBytes];
        Arrays.fill(value, (byte) 'v');
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(IN, key.getBytes(StandardCharsets.UTF_8), value);
        record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
        if (cost != null) {
            record.headers().add(ShaperHeaders.COST, cost.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(record);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2_000_000,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers) {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "oversized-it-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
