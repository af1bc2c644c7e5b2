package dev.shaper.demo.traffic;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends generated records to a Kafka topic with an idempotent producer ({@code acks=all}), so a retry inside
 * the producer never duplicates a record and the accounting stays exact. Counts what the broker acknowledged;
 * the first failure is kept and reported by {@link #close()}.
 */
public final class KafkaRecordSink implements RecordSink, AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

    public KafkaRecordSink(String bootstrapServers, String topic) {
        this.topic = topic;
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                // A little batching keeps bursts cheap without smoothing them (the shaper's job).
                ProducerConfig.LINGER_MS_CONFIG, 2,
                ProducerConfig.CLIENT_ID_CONFIG, "shaper-demo-producer"),
                new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public void send(DemoRecordId id, byte[] value) {
        producer.send(new ProducerRecord<>(topic, id.key(), value), (metadata, error) -> {
            if (error == null) {
                acknowledged.increment();
            } else {
                failed.increment();
                firstFailure.compareAndSet(null, error);
            }
        });
    }

    /** Records the broker has acknowledged so far. */
    public long acknowledged() {
        return acknowledged.sum();
    }

    /** Records the producer gave up on so far. */
    public long failed() {
        return failed.sum();
    }

    /** Waits until every record sent so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    /** Flushes, closes the producer and throws if any record could not be sent. */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
        Exception failure = firstFailure.get();
        if (failure != null) {
            throw new IllegalStateException(failed() + " records could not be sent to " + topic + "; first: "
                    + failure.getMessage(), failure);
        }
    }
}
