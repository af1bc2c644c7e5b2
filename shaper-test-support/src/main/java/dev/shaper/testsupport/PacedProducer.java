package dev.shaper.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends records at a steady rate for a while, the way live traffic arrives (the pacing is the workload, not a
 * wait for a condition). Record {@code i} goes to partition {@code i % partitions} (or where a given function puts
 * it), with key {@code p<partition>} and a {@link RecordId} value, and the given headers.
 */
public final class PacedProducer {

    /** One record sent: its id, the partition it went to and when it was sent (epoch ms). */
    public record Sent(RecordId id, int partition, long sentAtMs) {
    }

    private PacedProducer() {
    }

    public static List<Sent> send(String bootstrapServers, String topic, int partitions, double perSecond,
                                  Duration duration, Map<String, String> headers) {
        return send(bootstrapServers, topic, i -> i % partitions, perSecond, duration, headers);
    }

    /**
     * Sends at {@code perSecond} for {@code duration}, record {@code i} to partition {@code partitionOf(i)}: a skewed
     * load, say.
     */
    public static List<Sent> send(String bootstrapServers, String topic, IntUnaryOperator partitionOf,
                                  double perSecond, Duration duration, Map<String, String> headers) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 0);
        int count = (int) Math.round(perSecond * duration.toMillis() / 1000.0);
        long intervalNanos = (long) (1e9 / perSecond);
        List<Sent> sent = new ArrayList<>(count);
        Map<Integer, Long> perPartition = new HashMap<>();
        try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                long due = start + i * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                int partition = partitionOf.applyAsInt(i);
                long seq = perPartition.merge(partition, 1L, Long::sum) - 1;
                RecordId id = new RecordId("p" + partition, seq);
                RecordHeaders h = new RecordHeaders();
                headers.forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
                long now = System.currentTimeMillis();
                producer.send(new ProducerRecord<>(topic, partition, now, id.key(), id.toValue(), h));
                sent.add(new Sent(id, partition, now));
            }
            producer.flush();
        }
        return sent;
    }

    /** The ids of {@code sent}. */
    public static List<RecordId> ids(List<Sent> sent) {
        return sent.stream().map(Sent::id).toList();
    }

    /** Milliseconds between the first and the last record sent. */
    public static long spanMs(List<Sent> sent) {
        return sent.isEmpty() ? 0 : sent.get(sent.size() - 1).sentAtMs() - sent.get(0).sentAtMs();
    }

}
