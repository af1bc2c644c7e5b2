package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.PrometheusText;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operations HTTP server of real shaper instances against a real broker: health through a start and a
 * stop, the Prometheus metrics after a scripted run, and {@code /buckets/{key}} answered across instances.
 */
class OperationsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    private static Map<String, Object> settings(String name, int partitions) {
        broker.createTopics(partitions, name + "-in", name + "-out", name + "-rejected");
        Map<String, Object> s = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(s, name);
        return s;
    }

    private static void send(String topic, List<ProducerRecord<byte[], byte[]>> records) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            records.forEach(producer::send);
            producer.flush();
        }
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String key, long seq) {
        return new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                new RecordId(key == null ? "none" : key, seq).toValue());
    }

    @Test
    void shouldReportHealthThroughStartAndStopAndMetricsThatMatchTheRecords() throws Exception {
        // Given: a shaper at 1/s per key (so that even a slow machine processes a burst within one interval),
        // queues of at most 5 records, its HTTP server on a free port
        Map<String, Object> settings = settings("ops-metrics", 1);
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 1);
        settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, 5);
        settings.put(ShaperConfig.HTTP_PORT_CONFIG, 0);
        try (ShaperInstance instance = ShaperInstance.create(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     "ops-metrics-out", "ops-metrics-rejected")) {
            ShaperApplication app = instance.application();
            int port = app.httpPort();
            // Then: live but not ready before Kafka Streams starts
            assertThat(Http.get(port, "/health/live").status()).isEqualTo(200);
            Http.Response notYet = Http.get(port, "/health/ready");
            assertThat(notYet.status()).isEqualTo(503);
            assertThat(notYet.body()).contains("CREATED");

            // When: it starts, then it becomes ready
            app.start();
            Await.until("ready", Duration.ofSeconds(60), () -> Http.get(port, "/health/ready").status() == 200);

            // When: 8 records of key "a" at once (1 passes, 5 queue, 2 find the queue full), 3 keys once each,
            // and one record without a key
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                records.add(record("ops-metrics-in", "a", i));
            }
            for (String key : List.of("b", "c", "d")) {
                records.add(record("ops-metrics-in", key, 0));
            }
            records.add(record("ops-metrics-in", null, 0));
            send("ops-metrics-in", records);
            collector.await("all 12 records out", Duration.ofSeconds(60), read -> read.size() == records.size());

            // Then: the scraped metrics match what the topics hold, reason by reason
            List<CollectedRecord> read = collector.snapshot();
            long output = read.stream().filter(CollectedRecord::isOutput).count();
            String scrape = Http.get(port, "/metrics").body();
            double passed = PrometheusText.value(scrape, "shaper_records_passed_total");
            double queued = PrometheusText.value(scrape, "shaper_records_queued_total");
            double released = PrometheusText.value(scrape, "shaper_records_released_total");
            assertThat(passed + released).isEqualTo(output);
            assertThat(released).isEqualTo(queued);
            double rejected = 0;
            for (String reason : List.of("QUEUE_FULL", "INVALID_KEY", "DELAY_EXCEEDED", "RATE_LIMITED")) {
                double counted = PrometheusText.value(scrape, "shaper_records_rejected_total",
                        Map.of("reason", reason));
                assertThat(counted).as(reason).isEqualTo(read.stream().filter(r -> reason.equals(r.reason())).count());
                rejected += counted;
            }
            assertThat(passed + queued + rejected).isEqualTo(records.size());
            // And: the numbers are the ones the script implies: a0, b, c, d pass; a1..a5 wait; a6, a7 find the
            // queue full; the keyless record is invalid
            assertThat(passed).isEqualTo(4);
            assertThat(queued).isEqualTo(5);
            assertThat(PrometheusText.value(scrape, "shaper_records_rejected_total", Map.of("reason", "QUEUE_FULL")))
                    .isEqualTo(2);
            assertThat(PrometheusText.value(scrape, "shaper_records_rejected_total", Map.of("reason", "INVALID_KEY")))
                    .isEqualTo(1);
            assertThat(PrometheusText.value(scrape, "shaper_queue_records")).isZero();
            assertThat(PrometheusText.value(scrape, "shaper_queue_bytes")).isZero();
            assertThat(PrometheusText.value(scrape, "shaper_queue_delay_seconds_count")).isEqualTo(5);
            // The five waited about 1, 2, 3, 4 and 5 s: 15 s in all, give or take the ticks' jitter
            assertThat(PrometheusText.value(scrape, "shaper_queue_delay_seconds_sum")).isBetween(14.0, 20.0);
            // And: Kafka Streams' own metrics are there too
            assertThat(scrape).contains("kafka_stream_thread_process_total");

            // When: it stops, it says "not ready" while Kafka Streams closes, before the server goes away
            List<Integer> seen = new ArrayList<>();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(app::close);
            while (!closing.isDone()) {
                seen.add(Http.get(port, "/health/ready").status());
            }
            closing.get();
            // (a probe may still see 200 before close() began; from the first 503 on, never again)
            assertThat(seen).contains(503).doesNotContain(500);
            assertThat(seen.subList(seen.indexOf(503), seen.size())).doesNotContain(200);
            assertThat(Http.get(port, "/health/ready").status()).isEqualTo(-1);
        }
    }

    @Test
    void shouldAnswerBucketsForAKeyHostedByTheOtherInstance() throws Exception {
        // Given: two instances, each reachable at its application.server, one input partition each, 1 record/s
        // per key and 1 unit/s per partition in all (a total of 2)
        Map<String, Object> base = settings("ops-buckets", 2);
        base.put(ShaperConfig.SHAPING_RATE_CONFIG, 1);
        base.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, 2.0);
        int firstPort = FreePort.find();
        int secondPort = FreePort.find();
        Map<String, Object> firstSettings = new HashMap<>(base);
        firstSettings.put(ShaperConfig.HTTP_PORT_CONFIG, firstPort);
        firstSettings.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "localhost:" + firstPort);
        Map<String, Object> secondSettings = new HashMap<>(base);
        secondSettings.put(ShaperConfig.HTTP_PORT_CONFIG, secondPort);
        secondSettings.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "localhost:" + secondPort);
        try (ShaperInstance first = ShaperInstance.start(firstSettings);
             ShaperInstance second = ShaperInstance.start(secondSettings)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);
            Await.until("both ready", Duration.ofSeconds(60), () -> Http.get(firstPort, "/health/ready").status()
                    == 200 && Http.get(secondPort, "/health/ready").status() == 200);

            // And: a key whose partition the second instance hosts
            String key = null;
            for (int i = 0; key == null; i++) {
                KeyQueryMetadata where = first.streams().queryMetadataForKey(ShaperTopology.KEY_STATE_STORE,
                        ("key/" + i).getBytes(StandardCharsets.UTF_8), new ByteArraySerializer());
                if (where.activeHost().port() == secondPort) {
                    key = "key/" + i;
                }
            }
            // When: 6 records of that key arrive at once (1 leaves, 5 wait a second each)
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                records.add(record("ops-buckets-in", key, i));
            }
            send("ops-buckets-in", records);

            // Then: the first instance answers for it, from the second, once the queue is committed
            String path = "/buckets/" + key.replace("/", "%2F");
            // (the backlog in front of the total is published once per tick: it may lag the committed queue by one)
            // (the key's state and the task's virtual time are two reads: an answer between a commit's two writes
            // may lack the time, and with it nextReleaseMs; the assertions read the answer the wait accepted)
            AtomicReference<JsonNode> accepted = new AtomicReference<>();
            Await.until("5 queued", Duration.ofSeconds(30), () -> {
                Http.Response r = Http.get(firstPort, path);
                if (r.status() != 200) {
                    return false;
                }
                JsonNode body = json(r);
                accepted.set(body);
                return body.get("queuedRecords").asInt() >= 4 && body.get("capacityWaitMs").asLong() >= 2_000
                        && body.hasNonNull("nextReleaseMs");
            });
            JsonNode answer = accepted.get();
            assertThat(answer.get("key").asText()).isEqualTo(key);
            assertThat(answer.get("host").asText()).isEqualTo("localhost:" + secondPort);
            assertThat(answer.get("rules").get("rate").asDouble()).isEqualTo(1.0);
            assertThat(answer.get("rules").get("matched").asText()).isEqualTo("defaults");
            assertThat(answer.get("rules").get("mode").asText()).isEqualTo("enforce");
            long nextRelease = answer.get("nextReleaseMs").asLong();
            assertThat(nextRelease).isBetween(System.currentTimeMillis() - 2_000, System.currentTimeMillis() + 5_000);
            // And: a record arriving now would wait behind the 4-5 queued, for the key's rate and the partition's
            // part of the total alike
            long capacityWait = answer.get("capacityWaitMs").asLong();
            assertThat(capacityWait).as(answer.toString()).isBetween(2_000L, 7_000L);
            assertThat(answer.get("expectedWaitMs").asLong()).isBetween(capacityWait, 7_000L);
            // And: the second instance gives the same answer itself
            assertThat(json(Http.get(secondPort, path)).get("host").asText()).isEqualTo("localhost:" + secondPort);

            // And: a key without state is a 404, a malformed one a 400, an unknown path a 404, all with a message
            Http.Response unknown = Http.get(firstPort, "/buckets/never-seen");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(json(unknown).get("error").asText()).contains("no state for this key");
            // And: a key sent with characters that java.net.URI refuses is still forwarded (encoded afresh)
            String braced = null;
            for (int i = 0; braced == null; i++) {
                KeyQueryMetadata where = first.streams().queryMetadataForKey(ShaperTopology.KEY_STATE_STORE,
                        ("never{" + i + "}").getBytes(StandardCharsets.UTF_8), new ByteArraySerializer());
                if (where.activeHost().port() == secondPort) {
                    braced = "never{" + i + "}";
                }
            }
            Http.Response forwardedBraces = Http.rawGet(firstPort, "/buckets/" + braced);
            assertThat(forwardedBraces.status()).as(forwardedBraces.body()).isEqualTo(404);
            assertThat(json(forwardedBraces).get("key").asText()).isEqualTo(braced);
            Http.Response malformed = Http.rawGet(firstPort, "/buckets/bad%zzkey");
            assertThat(malformed.status()).isEqualTo(400);
            assertThat(json(malformed).get("error").asText()).contains("malformed percent-encoding");
            assertThat(Http.get(firstPort, "/buckets/").status()).isEqualTo(404); // the empty key, never seen
            assertThat(Http.get(firstPort, "/nothing").status()).isEqualTo(404);
            assertThat(first.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
        }
    }

    @Test
    void shouldAnswerBucketsForItsOwnPartitionsWithoutApplicationServer() throws Exception {
        // Given: two instances without application.server (the example settings leave it unset), one input
        // partition each, 1 record/s
        Map<String, Object> base = settings("ops-local", 2);
        base.put(ShaperConfig.SHAPING_RATE_CONFIG, 1);
        try (ShaperInstance first = ShaperInstance.start(new HashMap<>(base));
             ShaperInstance second = ShaperInstance.start(new HashMap<>(base))) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);
            int firstPort = first.application().httpPort();
            int secondPort = second.application().httpPort();
            Await.until("both ready", Duration.ofSeconds(60), () -> Http.get(firstPort, "/health/ready").status()
                    == 200 && Http.get(secondPort, "/health/ready").status() == 200);

            // When: 6 records each of key "k" and of the empty key arrive at once (1 leaves, 5 wait a second each)
            Map<String, Integer> partitionOf = new HashMap<>();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                for (String key : List.of("k", "")) {
                    for (int i = 0; i < 6; i++) {
                        partitionOf.put(key, producer.send(record("ops-local-in", key, i)).get().partition());
                    }
                }
            }

            // Then: for each key, the instance that hosts its partition answers from its own store
            for (String key : List.of("k", "")) {
                int partition = partitionOf.get(key);
                boolean firstHosts = hostsInputPartition(first, "ops-local-in", partition);
                int hostPort = firstHosts ? firstPort : secondPort;
                int otherPort = firstHosts ? secondPort : firstPort;
                String path = "/buckets/" + key;
                Await.until(() -> "'" + key + "' queued on its host: " + Http.get(hostPort, path),
                        Duration.ofSeconds(30), () -> {
                            Http.Response r = Http.get(hostPort, path);
                            return r.status() == 200 && json(r).get("queuedRecords").asInt() >= 4;
                        });
                JsonNode answer = json(Http.get(hostPort, path));
                assertThat(answer.get("key").asText()).isEqualTo(key);
                assertThat(answer.get("partition").asInt()).isEqualTo(partition);
                // And: the other instance cannot forward, and says which setting would make it
                Http.Response elsewhere = Http.get(otherPort, path);
                assertThat(elsewhere.status()).as(elsewhere.body()).isEqualTo(421);
                assertThat(json(elsewhere).get("error").asText())
                        .contains("partition " + partition, "not hosted by this instance", "application.server");
            }
            assertThat(first.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(second.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
        }
    }

    private static boolean hostsInputPartition(ShaperInstance instance, String topic, int partition) {
        return instance.streams().metadataForLocalThreads().stream()
                .flatMap(thread -> thread.activeTasks().stream())
                .anyMatch(task -> task.topicPartitions().contains(new TopicPartition(topic, partition)));
    }

    private static JsonNode json(Http.Response response) {
        try {
            return JSON.readTree(response.body());
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }
}
