package dev.shaper.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.ShaperHeaders;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client examples of docs/clients.md, run together against a broker and the shaper: the producer sends bursts
 * far above the shaper's limits with the cost and tenant headers, the retrier publishes again what was rejected with
 * a retry-after, and the DB writer writes each request once. Every request that can be retried ends in the database
 * exactly once; the one with an invalid cost is given up.
 */
class ClientExamplesIT {

    private static final int KEYS = 3;
    private static final int PER_KEY = 80;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @TempDir
    Path stateDir;

    @Test
    void shouldWriteEveryRetriableRequestOnceThroughRejectionsAndRetries() throws Exception {
        // Given: the shaper with small queues and an admission limit per tenant, a retrier and a DB writer
        String run = UUID.randomUUID().toString().substring(0, 8);
        String input = "input-" + run;
        String shaped = "shaped-" + run;
        String rejected = "rejected-" + run;
        broker.createTopics(2, input);
        broker.createTopics(2, KafkaBroker.APPEND_TIME, shaped);
        broker.createTopics(1, rejected);
        List<ConsumerRecord<byte[], byte[]>> givenUp = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        String url = "jdbc:h2:mem:clients-" + run + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1";
        ShaperApplication shaper = startShaper(run, input, shaped, rejected);
        try (Connection writerDb = DriverManager.getConnection(url);
             Connection db = DriverManager.getConnection(url);
             RejectedRetrier retrier = new RejectedRetrier(broker.bootstrapServers(), "retrier-" + run, rejected, input,
                     30, givenUp::add);
             ExactlyOnceDbWriter writer = new ExactlyOnceDbWriter(broker.bootstrapServers(), "writer-" + run, shaped,
                     writerDb);
             RequestProducer producer = new RequestProducer(broker.bootstrapServers(), input)) {
            threads.add(start("retrier", retrier));
            threads.add(start("db-writer", writer));

            // When: all requests at once, some costing 3 units, and one with a cost the shaper refuses
            int sent = 0;
            for (int i = 0; i < PER_KEY; i++) {
                for (int k = 0; k < KEYS; k++) {
                    producer.send("key-" + k, "req-" + k + "-" + i, "tenant-" + (k % 2), i % 10 == 0 ? 3 : 1, "v" + i);
                    sent++;
                }
            }
            producer.send("key-0", "req-bad-cost", "tenant-0", 0, "refused");
            producer.flush();

            // Then: every other request reaches the database once, some of them after a retry
            int expected = sent;
            Await.until(() -> "rows " + count(db, "SELECT COUNT(*) FROM requests") + " of " + expected + ", retried "
                    + retrier.retried(), Duration.ofSeconds(120),
                    () -> count(db, "SELECT COUNT(*) FROM requests") == expected);
            assertThat(count(db, "SELECT COUNT(DISTINCT id) FROM requests")).isEqualTo(expected);
            assertThat(count(db, "SELECT COUNT(*) FROM requests WHERE id = 'req-bad-cost'")).isZero();
            assertThat(retrier.retried()).as("requests published again after a rejection").isPositive();
            Await.until("the invalid cost given up", Duration.ofSeconds(30), () -> !givenUp.isEmpty());
            assertThat(givenUp).singleElement().satisfies(r -> assertThat(header(r, ShaperHeaders.REASON))
                    .isEqualTo("INVALID_COST"));
            assertThat(count(db, "SELECT COUNT(*) FROM requests WHERE queued_ms > 0")).as("requests that waited")
                    .isPositive();
        } finally {
            for (Thread t : threads) {
                t.join(30_000);
            }
            shaper.close();
        }
    }

    private static Thread start(String name, Runnable loop) {
        Thread thread = new Thread(loop, name);
        thread.start();
        return thread;
    }

    @Test
    void shouldUseTheHeaderNamesTheShaperReads() {
        assertThat(RequestProducer.COST_HEADER).isEqualTo(ShaperHeaders.COST);
        assertThat(RejectedRetrier.REASON).isEqualTo(ShaperHeaders.REASON);
        assertThat(RejectedRetrier.RETRY_AFTER_MS).isEqualTo(ShaperHeaders.RETRY_AFTER_MS);
        assertThat(RejectedRetrier.OMITTED).isEqualTo(ShaperHeaders.OMITTED);
    }

    private ShaperApplication startShaper(String run, String input, String shaped, String rejected) throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put(StreamsConfig.APPLICATION_ID_CONFIG, "clients-" + run);
        s.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        s.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir.resolve("state")).toString());
        s.put(ShaperConfig.INPUT_TOPIC_CONFIG, input);
        s.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, shaped);
        s.put(ShaperConfig.REJECTED_TOPIC_CONFIG, rejected);
        s.put(ShaperConfig.SHAPING_RATE_CONFIG, "40");
        s.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "20");
        s.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, "20");
        s.put(ShaperConfig.ADMISSION_RATE_CONFIG, "60");
        s.put(ShaperConfig.ADMISSION_BURST_CONFIG, "40");
        s.put(ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, RequestProducer.TENANT_HEADER);
        s.put(ShaperConfig.HTTP_PORT_CONFIG, "-1");
        ShaperApplication shaper = ShaperApplication.create(s);
        shaper.start();
        Await.until("the shaper running", Duration.ofSeconds(60),
                () -> shaper.streams().state() == KafkaStreams.State.RUNNING);
        return shaper;
    }

    private static long count(Connection db, String sql) {
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (Exception e) {
            return -1; // the table does not exist before the writer's start
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
