package dev.shaper.examples;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Writes the shaped topic into a database, each request exactly once (docs/clients.md): it reads only committed
 * records, writes each poll's records in one database transaction with an insert that skips ids already present,
 * and commits the offsets after the database. A crash between the two reads the batch again, and the ids make the
 * second write a no-op. It needs nothing but kafka-clients and a JDBC driver; the SQL is PostgreSQL's.
 */
public final class ExactlyOnceDbWriter implements Runnable, AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final Connection db;
    private final String shapedTopic;
    private final AtomicLong inserted = new AtomicLong();
    private volatile boolean running = true;

    public ExactlyOnceDbWriter(String bootstrapServers, String groupId, String shapedTopic, Connection db)
            throws SQLException {
        this.consumer = new KafkaConsumer<>(config(bootstrapServers, groupId));
        this.shapedTopic = shapedTopic;
        this.db = db;
        db.setAutoCommit(false);
        // [table]
        try (Statement s = db.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS requests (id VARCHAR(100) PRIMARY KEY,"
                    + " request_key VARCHAR(200) NOT NULL, payload VARCHAR(10000), queued_ms BIGINT NOT NULL)");
        }
        // [/table]
        db.commit();
    }

    // [config]
    static Properties config(String bootstrapServers, String groupId) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        // Only records of committed transactions: what the shaper released, never what an aborted attempt wrote.
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return config;
    }
    // [/config]

    // [loop]
    @Override
    public void run() {
        consumer.subscribe(List.of(shapedTopic));
        try {
            while (running) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    inserted.addAndGet(write(records));
                } catch (SQLException e) {
                    // Nothing of the batch is in the database: read it again from its first offsets and retry.
                    rollback();
                    records.partitions().forEach(p -> consumer.seek(p, records.records(p).get(0).offset()));
                    sleep(Duration.ofSeconds(1));
                    continue;
                }
                consumer.commitSync(nextOffsets(records)); // after the database: a crash here only repeats no-ops
            }
        } catch (WakeupException e) {
            // close() was called
        } finally {
            consumer.close();
        }
    }

    /** Writes a poll's records in one transaction; returns how many were new. */
    private int write(ConsumerRecords<String, String> records) throws SQLException {
        int inserted = 0;
        try (PreparedStatement insert = db.prepareStatement("INSERT INTO requests (id, request_key, payload,"
                + " queued_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            for (ConsumerRecord<String, String> record : records) {
                insert.setString(1, id(record));
                insert.setString(2, record.key());
                insert.setString(3, record.value());
                insert.setLong(4, queuedMs(record));
                insert.addBatch();
            }
            for (int count : insert.executeBatch()) {
                inserted += Math.max(count, 0);
            }
        }
        db.commit();
        return inserted;
    }

    /** The request's id, as its producer set it; without one, where the shaper wrote it, unique under exactly-once. */
    private static String id(ConsumerRecord<String, String> record) {
        Header id = record.headers().lastHeader("request.id");
        return id != null ? new String(id.value(), StandardCharsets.UTF_8)
                : record.topic() + "-" + record.partition() + "-" + record.offset();
    }

    /** How long the record waited in the shaper: shaper.queued.ms, absent (0) when it passed at once. */
    private static long queuedMs(ConsumerRecord<String, String> record) {
        Header queued = record.headers().lastHeader("shaper.queued.ms");
        return queued == null ? 0 : Long.parseLong(new String(queued.value(), StandardCharsets.UTF_8));
    }
    // [/loop]

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<?, ?> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition p : records.partitions()) {
            List<? extends ConsumerRecord<?, ?>> inPartition = records.records(p);
            offsets.put(p, new OffsetAndMetadata(inPartition.get(inPartition.size() - 1).offset() + 1));
        }
        return offsets;
    }

    private void rollback() {
        try {
            db.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the next write fails again and is retried
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Rows this writer inserted (ids already present not counted). */
    public long inserted() {
        return inserted.get();
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
