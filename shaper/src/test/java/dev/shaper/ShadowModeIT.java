package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CommittedRecords;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shadow mode on a real broker and a real redis-server: a rule in shadow admits 10/s while 100/s is offered for 5 s.
 * Every record of its key passes to the output topic without waiting, and the shadow topic holds the rejections the
 * rule would have made, about 90 a second, with their reasons; beside it, a key under the same limit enforced is
 * limited for real. The shadow limit counts in Redis under a key of its own, never the enforced one's.
 */
class ShadowModeIT {

    private static final Logger LOG = LoggerFactory.getLogger(ShadowModeIT.class);
    private static final int OFFERED_PER_SECOND = 100;
    private static final int SECONDS = 5;
    private static final int PER_KEY = OFFERED_PER_SECOND * SECONDS;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(180)
    void shouldPassEveryRecordOfAShadowRuleAtOnceAndReportItsWouldBeRejections(@TempDir Path dir)
            throws Exception {
        // Given: "tried-" keys under a shadow rule of 10/s, every other key under the same limit enforced
        broker.createTopics(1, "shadow-in", "shadow-out", "shadow-rejected", "shadow-decisions");
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, """
                rules:
                  - prefix: "tried-"
                    mode: shadow
                    admission.rate: 10
                    admission.burst: 10
                """);
        try (RedisServer redis = RedisServer.start()) {
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "shadow-it");
            settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, "shadow-in");
            settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "shadow-out");
            settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "shadow-rejected");
            settings.put(ShaperConfig.SHADOW_TOPIC_CONFIG, "shadow-decisions");
            settings.put(ShaperConfig.RULES_FILE_CONFIG, rules.toString());
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 100_000); // admission alone limits
            settings.put(ShaperConfig.ADMISSION_RATE_CONFIG, 10);
            settings.put(ShaperConfig.ADMISSION_BURST_CONFIG, 10);
            settings.put(ShaperConfig.ADMISSION_MODE_CONFIG, "strict");
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redis.uri());
            settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
            try (ShaperInstance shaper = ShaperInstance.start(settings)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);

                // When: 100/s for 5 s to the key in shadow and to the enforced key, while the test watches which
                // buckets Redis holds (a full bucket expires: they are looked for while they are in use)
                Set<String> seen = ConcurrentHashMap.newKeySet();
                long offeredMs;
                RedisClient client = RedisClient.create(redis.uri());
                ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
                try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
                    watcher.scheduleWithFixedDelay(() -> {
                        for (String key : List.of("shadow:tried-1", "tried-1", "enforced-1")) {
                            String bucket = AdmissionAlgorithm.TOKEN_BUCKET.keyPrefix() + "{" + key + "}";
                            if (connection.sync().exists(bytes(bucket)) == 1) {
                                seen.add(key);
                            }
                        }
                    }, 0, 100, TimeUnit.MILLISECONDS);
                    offeredMs = offer("tried-1", "enforced-1");
                } finally {
                    watcher.shutdownNow();
                    watcher.awaitTermination(5, TimeUnit.SECONDS);
                    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                }

                // Then (once the shaper decided every record offered): every record of the key in shadow reached
                // the output, none of them queued
                Await.until("every record offered decided", Duration.ofSeconds(60),
                        () -> decided(shaper) >= 2 * PER_KEY);
                int enforcedRejected = (int) shaper.meters().get(ShaperMetrics.REJECTED).tag("reason", "RATE_LIMITED")
                        .tag(ShaperMetrics.MODE_TAG, "enforce").counter().count();
                int shadowRejected = (int) shaper.meters().get(ShaperMetrics.REJECTED).tag("reason", "RATE_LIMITED")
                        .tag(ShaperMetrics.MODE_TAG, "shadow").counter().count();
                List<ConsumerRecord<byte[], byte[]>> output = readUntil("shadow-out", 2 * PER_KEY - enforcedRejected);
                List<ConsumerRecord<byte[], byte[]>> tried = ofKey(output, "tried-1");
                assertThat(tried).hasSize(PER_KEY);
                assertThat(tried).allSatisfy(r -> assertThat(r.headers().lastHeader(ShaperHeaders.QUEUED_MS))
                        .isNull());
                long slowest = tried.stream().mapToLong(r -> Long.parseLong(text(r.headers()
                        .lastHeader(ShaperHeaders.RELEASED_MS))) - r.timestamp()).max().orElseThrow();
                LOG.info("The key in shadow: {} records out, the slowest {} ms from its send to its release",
                        tried.size(), slowest);
                assertThat(slowest).isLessThan(5_000); // at once: queued at 10/s the last would wait 44 s
                // A token bucket of 10/s admits a burst of 10, then 10/s for as long as the shaper took to decide the
                // records: their releases, at once, span that (5 s as offered, longer on a busy machine)
                long[] decidedAt = tried.stream().mapToLong(r -> Long.parseLong(text(r.headers()
                        .lastHeader(ShaperHeaders.RELEASED_MS)))).sorted().toArray();
                long decidingMs = decidedAt[decidedAt.length - 1] - decidedAt[0];
                int admitted = 10 + (int) (10 * decidingMs / 1000);
                LOG.info("Offered over {} ms, decided over {} ms: about {} admitted", offeredMs, decidingMs, admitted);

                // And: the shadow topic holds the would-be rejections, about 90 a second, with their reasons
                List<ConsumerRecord<byte[], byte[]>> reports = readUntil("shadow-decisions", shadowRejected);
                LOG.info("Shadow topic: {} reports for {} offered ({}/s)", reports.size(), PER_KEY,
                        reports.size() / (double) SECONDS);
                assertThat(reports).hasSizeBetween(PER_KEY - admitted - 10, PER_KEY - admitted + 10);
                assertThat(reports).allSatisfy(report -> {
                    assertThat(text(report.key())).isEqualTo("tried-1");
                    assertThat(report.value()).isNull();
                    assertThat(header(report, ShaperHeaders.SHADOW_DECISION)).isEqualTo("reject");
                    assertThat(header(report, ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
                    assertThat(Long.parseLong(header(report, ShaperHeaders.RETRY_AFTER_MS))).isBetween(1L, 100L);
                    assertThat(header(report, ShaperHeaders.SOURCE_TOPIC)).isEqualTo("shadow-in");
                });
                assertThat(shaper.meters().get(ShaperMetrics.REJECTED).tag("reason", "RATE_LIMITED")
                        .tag("mode", "shadow").counter().count()).isEqualTo(reports.size());

                // And: the enforced key was limited for real, its rejections in the rejected topic
                int enforcedOut = ofKey(output, "enforced-1").size();
                List<ConsumerRecord<byte[], byte[]>> rejected = readUntil("shadow-rejected", enforcedRejected);
                LOG.info("The enforced key: {} out, {} rejected", enforcedOut, rejected.size());
                assertThat(enforcedOut).isBetween(admitted - 10, admitted + 10);
                assertThat(rejected).hasSize(PER_KEY - enforcedOut);
                assertThat(rejected).allSatisfy(r -> assertThat(text(r.key())).isEqualTo("enforced-1"));
                // The same limit on the same traffic: what the shadow rule reported is what enforcing it does
                assertThat(reports.size()).isCloseTo(rejected.size(), within(5));

                // And: the shadow rule counted in Redis under a key of its own, never the enforced one's
                assertThat(seen).containsExactlyInAnyOrder("shadow:tried-1", "enforced-1");
            }
        }
    }

    /** The records the shaper decided on: passed at once, queued, or rejected for real. */
    private static double decided(ShaperInstance shaper) {
        double rejected = shaper.meters().get(ShaperMetrics.REJECTED).tag(ShaperMetrics.MODE_TAG, "enforce")
                .counters().stream().mapToDouble(c -> c.count()).sum();
        return shaper.meters().get(ShaperMetrics.PASSED).functionCounter().count()
                + shaper.meters().get(ShaperMetrics.QUEUED).functionCounter().count() + rejected;
    }

    /**
     * A record of each key every 10 ms for {@link #SECONDS}; the producer's own time stamps each. Returns how long the
     * offering took, from the first send to the last, in milliseconds.
     */
    private static long offer(String... keys) {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 0), new ByteArraySerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            long firstMs = System.currentTimeMillis();
            long lastMs = firstMs;
            for (int i = 0; i < PER_KEY; i++) {
                LockSupport.parkNanos(start + i * 1_000_000_000L / OFFERED_PER_SECOND - System.nanoTime());
                lastMs = System.currentTimeMillis();
                for (String key : keys) {
                    producer.send(new ProducerRecord<>("shadow-in", null, lastMs, bytes(key), bytes(key + "-" + i)));
                }
            }
            producer.flush();
            return lastMs - firstMs;
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readUntil(String topic, int count) {
        return CommittedRecords.read(broker.bootstrapServers(), topic, count);
    }

    private static List<ConsumerRecord<byte[], byte[]>> ofKey(List<ConsumerRecord<byte[], byte[]>> records,
                                                              String key) {
        return records.stream().filter(r -> text(r.key()).equals(key)).toList();
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : text(header.value());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static String text(Header header) {
        return text(header.value());
    }
}
