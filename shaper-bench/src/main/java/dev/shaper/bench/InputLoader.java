package dev.shaper.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Fills an input topic completely before an application starts, so that the measurement sees only the
 * application's speed, not the producer's. Keys are {@code key-NNNNNNN}; values are random bytes (a fixed,
 * seeded pool, so every measurement reads the same data).
 */
final class InputLoader {

    private static final int VALUE_POOL = 1024;

    private InputLoader() {
    }

    /** Writes {@code records} records to {@code topic} in the key layout of {@code scenario}; returns records/s. */
    static double load(String bootstrapServers, String topic, long records, Scenario scenario,
                       BenchmarkOptions options) {
        byte[][] keys = new byte[options.keys()][];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = String.format("key-%07d", k).getBytes(StandardCharsets.UTF_8);
        }
        Random random = new Random(42);
        byte[][] values = new byte[VALUE_POOL][options.valueBytes()];
        for (byte[] v : values) {
            random.nextBytes(v);
        }
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "none",
                // Right after topic creation the broker may still answer NOT_LEADER_OR_FOLLOWER; with several
                // batches in flight the retry then fails with OUT_OF_ORDER_SEQUENCE_NUMBER. Loading is untimed.
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            awaitLeaders(producer, topic, options.partitions());
            for (long i = 0; i < records && failure.get() == null; i++) {
                byte[] key = keys[(int) scenario.keyIndex(i, options)];
                producer.send(new ProducerRecord<>(topic, key, values[(int) (i % VALUE_POOL)]), (meta, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("loading " + topic + " failed", failure.get());
        }
        return records / ((System.nanoTime() - start) / 1e9);
    }

    /** Waits until the producer's metadata shows a leader for every partition of the (new) topic. */
    private static void awaitLeaders(KafkaProducer<byte[], byte[]> producer, String topic, int partitions) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            List<PartitionInfo> infos = producer.partitionsFor(topic);
            if (infos.size() == partitions && infos.stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no leaders for all partitions of " + topic + " within 60 s: " + infos);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }
}
