package dev.shaper.examples;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A producer of requests for the shaper (docs/clients.md): each record has a key (the shaper's queue), an id (for the
 * database's idempotent write), a cost and a tenant (the admission key, with {@code shaper.admission.key.header=tenant}).
 * It needs nothing but kafka-clients.
 */
public final class RequestProducer implements AutoCloseable {

    // [headers]
    /** How many units of rate the record uses: a whole number from 1 to 1,000,000, plain ASCII digits. */
    public static final String COST_HEADER = "shaper.cost";
    /** The admission key, when the shaper runs with shaper.admission.key.header=tenant. */
    public static final String TENANT_HEADER = "tenant";
    /** The request's own id, chosen by the client: the database writes each id once. */
    public static final String ID_HEADER = "request.id";
    // [/headers]

    private final Producer<String, String> producer;
    private final String inputTopic;

    public RequestProducer(String bootstrapServers, String inputTopic) {
        this.producer = new KafkaProducer<>(config(bootstrapServers));
        this.inputTopic = inputTopic;
    }

    // [config]
    static Properties config(String bootstrapServers) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        // Acknowledged means written to every in-sync replica; retries never duplicate or reorder a key's records.
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return config;
    }
    // [/config]

    // [send]
    /**
     * Sends one request. The key must not be null: the shaper queues per key (a record without one is rejected as
     * INVALID_KEY), and Kafka's default partitioner keeps a key's records in one partition, in order.
     */
    public Future<RecordMetadata> send(String key, String id, String tenant, int cost, String value) {
        ProducerRecord<String, String> record = new ProducerRecord<>(inputTopic, key, value);
        record.headers().add(ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
        record.headers().add(TENANT_HEADER, tenant.getBytes(StandardCharsets.UTF_8));
        if (cost != 1) { // no header: the record costs 1
            record.headers().add(COST_HEADER, Integer.toString(cost).getBytes(StandardCharsets.US_ASCII));
        }
        return producer.send(record);
    }
    // [/send]

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
