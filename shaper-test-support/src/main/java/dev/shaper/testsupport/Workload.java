package dev.shaper.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Test input for the shaper: records over a few keys, each carrying a unique {@link RecordId} in its value.
 * Keys are named {@code key-0}, {@code key-1}, ...; records are interleaved across keys, so a burst
 * reaches every key's queue at about the same time.
 */
public final class Workload {

    private Workload() {
    }

    /** The name of key number {@code index}. */
    public static String key(int index) {
        return "key-" + index;
    }

    /**
     * The ids of {@code perKey} records on each of {@code keyCount} keys, with sequence numbers
     * {@code firstSeq .. firstSeq + perKey - 1}, interleaved: {@code key-0:s, key-1:s, ..., key-0:s+1, ...}.
     */
    public static List<RecordId> interleaved(int keyCount, long firstSeq, int perKey) {
        List<RecordId> ids = new ArrayList<>(keyCount * perKey);
        for (long seq = firstSeq; seq < firstSeq + perKey; seq++) {
            for (int k = 0; k < keyCount; k++) {
                ids.add(new RecordId(key(k), seq));
            }
        }
        return ids;
    }

    /**
     * Sends one record per id, in list order, as fast as the producer goes, and waits until the broker has
     * acknowledged all of them. The producer is idempotent with {@code acks=all}, so each partition holds the
     * records of a key in the order of the list.
     *
     * @param payloadBytes size of each value (the id padded, see {@link RecordId#toValue(int)}); 0 for bare ids
     */
    public static void send(String bootstrapServers, String topic, List<RecordId> ids, int payloadBytes) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            List<Future<?>> sent = new ArrayList<>(ids.size());
            for (RecordId id : ids) {
                byte[] value = payloadBytes > 0 ? id.toValue(payloadBytes) : id.toValue();
                sent.add(producer.send(new ProducerRecord<>(topic, id.key(), value)));
            }
            producer.flush();
            for (Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending the workload", e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot send the workload to " + topic, e);
        }
    }

    /** {@link #interleaved} then {@link #send}, unpadded: a burst of {@code keyCount x perKey} records. */
    public static List<RecordId> sendBurst(String bootstrapServers, String topic, int keyCount, int perKey) {
        List<RecordId> ids = interleaved(keyCount, 0, perKey);
        send(bootstrapServers, topic, ids, 0);
        return ids;
    }
}
