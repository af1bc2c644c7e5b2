package dev.shaper.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.PrometheusText;
import dev.shaper.testsupport.ShaperProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many distinct keys through one instance with many partitions: the key-state cache must stay within its bound
 * per instance, so the heap stays bounded however many keys pass, and the instance stays live and observable.
 * Before the bound applied per instance (it applied per task), a 512 MB heap filled at 3.3 M keys with 32 partitions.
 *
 * <p>One shaper as a child JVM ({@code -Xmx512m -XX:+ExitOnOutOfMemoryError}, as in the image), an input topic
 * of 32 partitions, N distinct keys with R records each, sent in R rounds over all keys (so a key's records are a
 * whole round apart, below the key's rate: they pass at once, and a key's second record finds its state evicted
 * from the cache). Samples the child's RSS, heap and cached key states; at the end the state directory's and the
 * changelogs' sizes, and that every record reached the output or the rejected topic.
 *
 * <p>Properties: {@code reliability.keys} (10,000,000), {@code reliability.keys.records} (2),
 * {@code reliability.keys.partitions} (32), {@code reliability.keys.rate} (10 per key and second),
 * {@code reliability.keys.child.opts} ({@code -Xmx512m -XX:+ExitOnOutOfMemoryError}),
 * {@code reliability.sample.ms} (5,000), {@code reliability.keys.timeout.s} (3,600).
 */
class DistinctKeysRun {

    private static final Logger LOG = LoggerFactory.getLogger(DistinctKeysRun.class);

    private final long keys = HeavyRuns.longValue("reliability.keys", 10_000_000);
    private final int recordsPerKey = HeavyRuns.integer("reliability.keys.records", 2);
    private final int partitions = HeavyRuns.integer("reliability.keys.partitions", 32);
    private final double rate = HeavyRuns.decimal("reliability.keys.rate", 10);
    private final long sampleMs = HeavyRuns.longValue("reliability.sample.ms", 5_000);
    private final Duration timeout = Duration.ofSeconds(HeavyRuns.longValue("reliability.keys.timeout.s", 3_600));

    @Test
    void distinctKeysThroughOneInstance() throws Exception {
        Path dir = HeavyRuns.freshWorkDir("distinct-keys");
        Path stateDir = dir.resolve("state");
        String app = "distinct-keys";
        long total = keys * recordsPerKey;
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopics(partitions, "dk-in", "dk-out", "dk-rejected");
            Map<String, String> settings = HeavyRuns.baseSettings(broker.bootstrapServers(), app, stateDir, "dk");
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(rate));
            Path settingsFile = HeavyRuns.settingsFile(dir, "shaper", settings);
            int port = FreePort.find();
            ShaperProcess shaper = ShaperProcess.start("distinct-keys", settingsFile, dir.resolve("shaper.log"),
                    HeavyRuns.jvmOptions("reliability.keys.child.opts", "-Xmx512m -XX:+ExitOnOutOfMemoryError"),
                    port);
            try (shaper;
                 ChildSampler sampler = new ChildSampler(() -> shaper, port, stateDir, sampleMs);
                 TopicCounter counter = new TopicCounter(broker.bootstrapServers(), "dk-out", "dk-rejected");
                 Admin admin = broker.admin()) {
                Await.until("the shaper is ready", Duration.ofSeconds(120), () -> {
                    assertAlive(shaper);
                    return HeavyRuns.status(port, "/health/ready") == 200;
                });
                sampler.expectAnswers(true);
                sampler.progress(() -> ", read back " + counter.total() + " of " + total);

                long start = System.nanoTime();
                long sent = send(broker.bootstrapServers(), shaper);
                double sendSeconds = (System.nanoTime() - start) / 1e9;
                LOG.info("sent {} records over {} keys in {} s", sent, keys, String.format("%.1f", sendSeconds));
                Await.until(() -> counter.total() + " of " + total + " records read back", timeout, () -> {
                    assertAlive(shaper);
                    return counter.total() >= total;
                });
                double seconds = (System.nanoTime() - start) / 1e9;

                HeavyRuns.Sample end = sampler.sampleNow();
                int live = HeavyRuns.status(port, "/health/live");
                long bound = (long) PrometheusText.value(Http.get(port, "/metrics").body(),
                        "shaper_state_cache_max_keys");
                long changelogs = HeavyRuns.topicBytes(admin, HeavyRuns.changelogPrefix(app));
                long input = HeavyRuns.topicBytes(admin, "dk-in");
                new HeavyRuns.Figures("DistinctKeysRun")
                        .add("distinct keys", HeavyRuns.count(keys))
                        .add("records (per key)", HeavyRuns.count(total) + " (" + recordsPerKey + ")")
                        .add("input partitions", partitions)
                        .add("child JVM options", HeavyRuns.text("reliability.keys.child.opts",
                                "-Xmx512m -XX:+ExitOnOutOfMemoryError"))
                        .add("sent in", String.format("%.1f s", sendSeconds))
                        .add("all read back after", String.format("%.1f s (%,.0f records/s end to end)", seconds,
                                total / seconds))
                        .add("shaped / rejected", HeavyRuns.count(counter.count("dk-out")) + " / "
                                + HeavyRuns.count(counter.count("dk-rejected")))
                        .add("lost (sent - read back)", total - counter.total())
                        .add("max RSS (peak, VmHWM)", HeavyRuns.mb(sampler.maxRss()))
                        .add("max heap used (of samples)", HeavyRuns.mb(sampler.maxHeap()))
                        .add("heap used at the end", HeavyRuns.mb(end.heapUsedBytes()))
                        .add("max cached key states (bound)", HeavyRuns.count(sampler.maxCacheKeys()) + " ("
                                + HeavyRuns.count(bound) + ")")
                        .add("state dir at the end (max)", HeavyRuns.mb(end.stateBytes()) + " ("
                                + HeavyRuns.mb(sampler.maxStateBytes()) + ")")
                        .add("changelog topics on the broker", HeavyRuns.mb(changelogs))
                        .add("input topic on the broker", HeavyRuns.mb(input))
                        .add("samples (/metrics unanswered)", sampler.samples() + " (" + sampler.unanswered() + ")")
                        .add("child alive, /health/live", shaper.isAlive() + ", " + live)
                        .write();

                assertThat(counter.total()).as("records read back").isEqualTo(total);
                assertThat(shaper.isAlive()).as("the shaper runs").isTrue();
                assertThat(live).as("/health/live").isEqualTo(200);
                assertThat(sampler.unanswered()).as("samples where /metrics did not answer").isZero();
            }
        }
    }

    /**
     * Sends every record, round by round over all keys, as fast as the broker takes them (acks=1, large batches);
     * returns how many the broker acknowledged, failing if any send failed.
     */
    private long send(String bootstrapServers, ShaperProcess shaper) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 262_144,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 134_217_728L);
        AtomicLong acked = new AtomicLong();
        AtomicReference<Exception> failed = new AtomicReference<>();
        byte[] value = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int round = 0; round < recordsPerKey; round++) {
                for (long k = 0; k < keys; k++) {
                    byte[] key = key(k);
                    producer.send(new ProducerRecord<>("dk-in", key, value), (md, e) -> {
                        if (e != null) {
                            failed.compareAndSet(null, e);
                        } else {
                            acked.incrementAndGet();
                        }
                    });
                    if ((k & 0xFFFFF) == 0) {
                        assertAlive(shaper);
                        LOG.info("round {}: {} keys sent", round, k);
                    }
                }
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("a send failed", failed.get());
        }
        return acked.get();
    }

    /** {@code user-} and the key's number in 10 digits: 15 bytes (String.format would cost more than the send). */
    private static byte[] key(long number) {
        byte[] key = {'u', 's', 'e', 'r', '-', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
        long n = number;
        for (int i = key.length - 1; n > 0; i--) {
            key[i] = (byte) ('0' + n % 10);
            n /= 10;
        }
        return key;
    }

    private static void assertAlive(ShaperProcess shaper) {
        if (!shaper.isAlive()) {
            throw new AssertionError(shaper + " died; see target/reliability/distinct-keys/shaper.log");
        }
    }
}
