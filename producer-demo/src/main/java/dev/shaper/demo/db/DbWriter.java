package dev.shaper.demo.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Consumes the shaped topic ({@code read_committed}, so only records of committed shaper transactions) and
 * writes each poll's records as one JDBC batch in one database transaction ({@link BatchWriter}). Kafka offsets are
 * committed only after the database commit: a crash between the two replays the batch, and {@link ShapedRowsTable}'s
 * insert-if-absent turns the replay into no new rows. At least once into the database, no duplicate rows.
 *
 * <p>Runs on the thread that calls {@link #run()} until {@link #stop()}; a database or Kafka error ends the
 * loop and is rethrown by {@link #run()}, with the failed batch's offsets left uncommitted.
 */
public final class DbWriter implements AutoCloseable {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final BatchWriter batches;
    private volatile boolean running = true;

    /**
     * A writer whose batches tell no one but its stats.
     *
     * @param connection an open connection the writer owns from now on (closed by {@link #close()})
     * @param maxBatch   the most records per poll, hence per database batch
     */
    public DbWriter(String bootstrapServers, String topic, String groupId, int maxBatch, Connection connection,
                    ShapedRowsTable table, Clock clock) throws SQLException {
        this(bootstrapServers, topic, groupId, maxBatch, new BatchWriter(connection, table, clock));
    }

    /**
     * @param maxBatch the most records per poll, hence per database batch
     * @param batches  what writes each batch; the writer owns it from now on (closed by {@link #close()})
     */
    public DbWriter(String bootstrapServers, String topic, String groupId, int maxBatch, BatchWriter batches) {
        this.topic = topic;
        this.batches = batches;
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, groupId,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxBatch,
                ConsumerConfig.CLIENT_ID_CONFIG, "shaper-demo-db-writer"),
                new StringDeserializer(), new ByteArrayDeserializer());
    }

    public WriterStats stats() {
        return batches.stats();
    }

    /** Polls and writes until {@link #stop()}; throws what ended it otherwise. */
    public void run() throws SQLException {
        consumer.subscribe(List.of(topic));
        try {
            while (running) {
                ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (!records.isEmpty()) {
                    write(records);
                }
            }
        } catch (WakeupException stopping) {
            // stop() interrupts a poll this way; the last batch either committed whole or not at all.
        }
    }

    private void write(ConsumerRecords<String, byte[]> records) throws SQLException {
        List<ShapedRow> rows = new ArrayList<>(records.count());
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        long units = 0;
        for (ConsumerRecord<String, byte[]> r : records) {
            rows.add(ShapedRecordRows.toRow(r));
            units += RecordCost.of(r);
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        batches.write(rows, units);
        // Only now: had the process died before this line, the batch would be read and written again.
        consumer.commitSync(next);
    }

    /** Makes {@link #run()} return after the batch in progress; callable from any thread. */
    public void stop() {
        running = false;
        consumer.wakeup();
    }

    /** Closes the consumer and the batch writer's connection; call after {@link #run()} returned, on its thread. */
    @Override
    public void close() {
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        } finally {
            batches.close();
        }
    }
}
