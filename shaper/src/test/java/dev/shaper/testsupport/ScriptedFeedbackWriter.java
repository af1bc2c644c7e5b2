package dev.shaper.testsupport;

import dev.shaper.feedback.FeedbackReport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A database writer as the shaper sees it: a thread that publishes one {@link FeedbackReport} per period to the
 * feedback topic, with the p99 and the error ratio the test sets. A change is reported at once, not at the end of the
 * period, so that a test can time the loop's answer from it. It can also fall silent, send malformed records, and
 * send a report dated ahead of the clock.
 */
public final class ScriptedFeedbackWriter implements AutoCloseable {

    /** Units a report says were attempted in a period. */
    private static final long ATTEMPTS = 200;

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final String writerId;
    private final long periodMs;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile double p99Ms = 20;
    private volatile double errorRatio;
    private volatile boolean silent;
    private long lastAtMs;

    private ScriptedFeedbackWriter(String bootstrapServers, String topic, String writerId, Duration period) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG, 0), new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.writerId = writerId;
        this.periodMs = period.toMillis();
        this.thread = new Thread(this::run, "feedback-writer-" + writerId);
        this.thread.setDaemon(true);
    }

    /** Starts reporting healthy windows (p99 20 ms, no error) every {@code period}. */
    public static ScriptedFeedbackWriter start(String bootstrapServers, String topic, String writerId,
                                               Duration period) {
        ScriptedFeedbackWriter writer = new ScriptedFeedbackWriter(bootstrapServers, topic, writerId, period);
        writer.thread.start();
        return writer;
    }

    /** From now on the writes take {@code p99Ms} at the 99th percentile, and {@code errorRatio} of them fail. */
    public synchronized void report(double p99Ms, double errorRatio) {
        this.p99Ms = p99Ms;
        this.errorRatio = errorRatio;
        this.silent = false;
        publish();
    }

    /** From now on nothing is reported, as when the writers are down. */
    public void fallSilent() {
        silent = true;
    }

    /** Sends a record without a key and one whose value is not a report: both malformed. */
    public void sendMalformed() {
        try {
            producer.send(new ProducerRecord<>(topic, null, "{\"atMs\": 1}".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>(topic, writerId.getBytes(StandardCharsets.UTF_8),
                    "not json".getBytes(StandardCharsets.UTF_8))).get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot send the malformed records", e);
        }
    }

    /**
     * Sends one healthy report dated {@code aheadMs} ahead of the clock, as a writer whose clock is ahead would; the
     * reports after it are dated by the clock again.
     */
    public void sendDatedAhead(long aheadMs) {
        long atMs = System.currentTimeMillis() + aheadMs;
        FeedbackReport report = new FeedbackReport(atMs, periodMs, ATTEMPTS, 0, 20.0);
        try {
            producer.send(new ProducerRecord<>(topic, writerId.getBytes(StandardCharsets.UTF_8), report.toJson()))
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException("cannot send the report dated ahead", e);
        }
    }

    private void run() {
        while (running) {
            synchronized (this) {
                if (!silent) {
                    publish();
                }
            }
            LockSupport.parkNanos(periodMs * 1_000_000L);
        }
    }

    private void publish() {
        long now = Math.max(System.currentTimeMillis(), lastAtMs + 1); // a report must end after the previous one
        lastAtMs = now;
        long errors = Math.round(ATTEMPTS * errorRatio);
        FeedbackReport report = new FeedbackReport(now, periodMs, ATTEMPTS - errors, errors, p99Ms);
        producer.send(new ProducerRecord<>(topic, writerId.getBytes(StandardCharsets.UTF_8), report.toJson()));
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}
