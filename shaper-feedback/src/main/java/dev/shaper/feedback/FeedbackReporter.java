package dev.shaper.feedback;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a Java DB writer embeds to tell the shaper how the database is doing: it calls {@link #recordWrite} for each
 * write (or batch), and the reporter publishes one {@link FeedbackReport} per interval to the feedback topic, keyed
 * by the writer's id, from a daemon thread of its own. A window with no writes is reported too (with no latency):
 * the shaper tells a quiet writer from a silent one.
 *
 * <p>The 99th percentile is computed from up to {@value #MAX_SAMPLES} latencies per window, sampled uniformly
 * (reservoir sampling) when there are more. Thread-safe: any number of writer threads may record.
 */
public final class FeedbackReporter implements AutoCloseable {

    /** The most latencies kept per window. */
    static final int MAX_SAMPLES = 4_096;

    private final Producer<byte[], byte[]> producer;
    private final boolean ownsProducer;
    private final String topic;
    private final byte[] writerId;
    private final LongSupplier clockMs;
    private final Random random = new Random();
    private final long[] samples = new long[MAX_SAMPLES];
    private ScheduledExecutorService timer;
    private long windowStartMs;
    private long writes;
    private long errors;
    private long seen;
    private boolean closed;

    /**
     * A reporter that sends through {@code producer}, not yet publishing on its own (see {@link #start}).
     *
     * @param ownsProducer whether {@link #close} closes the producer
     * @param clockMs      the wall clock, epoch milliseconds
     */
    FeedbackReporter(Producer<byte[], byte[]> producer, boolean ownsProducer, String topic, String writerId,
                     LongSupplier clockMs) {
        if (topic == null || topic.isBlank() || writerId == null || writerId.isBlank()) {
            throw new IllegalArgumentException("a feedback reporter needs a topic and a writer id, got \"" + topic
                    + "\" and \"" + writerId + "\"");
        }
        this.producer = producer;
        this.ownsProducer = ownsProducer;
        this.topic = topic;
        this.writerId = writerId.getBytes(StandardCharsets.UTF_8);
        this.clockMs = clockMs;
        this.windowStartMs = clockMs.getAsLong();
    }

    /**
     * Starts a reporter with a producer of its own (idempotent, {@code acks=all}) that publishes every
     * {@code interval}.
     *
     * @param writerId this writer's id, unique among the writers of one database (a host name and a number, say)
     */
    public static FeedbackReporter start(String bootstrapServers, String topic, String writerId, Duration interval) {
        Producer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.CLIENT_ID_CONFIG, "shaper-feedback-" + writerId),
                new ByteArraySerializer(), new ByteArraySerializer());
        return start(producer, true, topic, writerId, interval);
    }

    /** Starts a reporter that sends through {@code producer} (which it closes on close only if it owns it). */
    public static FeedbackReporter start(Producer<byte[], byte[]> producer, boolean ownsProducer, String topic,
                                         String writerId, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval must be > 0, got " + interval);
        }
        FeedbackReporter reporter = new FeedbackReporter(producer, ownsProducer, topic, writerId,
                System::currentTimeMillis);
        reporter.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shaper-feedback-reporter");
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        reporter.timer.scheduleAtFixedRate(reporter::publishQuietly, ms, ms, TimeUnit.MILLISECONDS);
        return reporter;
    }

    /**
     * One write (or one batch of writes) ended.
     *
     * @param units        its cost in units, as the shaped records' {@code shaper.cost} (1 per record by default)
     * @param latencyNanos how long it took
     * @param ok           whether it succeeded
     */
    public synchronized void recordWrite(long units, long latencyNanos, boolean ok) {
        if (units < 0 || latencyNanos < 0) {
            throw new IllegalArgumentException("units and latency must be >= 0, got " + units + " and "
                    + latencyNanos);
        }
        if (ok) {
            writes += units;
        } else {
            errors += units;
        }
        if (seen < MAX_SAMPLES) {
            samples[(int) seen] = latencyNanos;
        } else {
            long slot = (long) (random.nextDouble() * (seen + 1));
            if (slot < MAX_SAMPLES) {
                samples[(int) slot] = latencyNanos;
            }
        }
        seen++;
    }

    /** Ends the current window: publishes its report (asynchronously) and returns it. */
    public FeedbackReport publishWindow() {
        FeedbackReport report = closeWindow();
        producer.send(new ProducerRecord<>(topic, writerId, report.toJson()));
        return report;
    }

    private void publishQuietly() {
        try {
            publishWindow();
        } catch (RuntimeException e) {
            // The next window will be sent; a failed send must not stop the timer for good.
        }
    }

    private synchronized FeedbackReport closeWindow() {
        long now = clockMs.getAsLong();
        Double p99 = null;
        if (seen > 0) {
            int kept = (int) Math.min(seen, MAX_SAMPLES);
            long[] sorted = Arrays.copyOf(samples, kept);
            Arrays.sort(sorted);
            int index = (int) Math.ceil(0.99 * kept) - 1;
            p99 = sorted[Math.max(0, index)] / 1e6;
        }
        FeedbackReport report = new FeedbackReport(now, Math.max(1, now - windowStartMs), writes, errors, p99);
        windowStartMs = now;
        writes = 0;
        errors = 0;
        seen = 0;
        return report;
    }

    /** Publishes the last window, stops the timer and, if it owns it, flushes and closes the producer. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (timer != null) {
            timer.shutdownNow();
        }
        publishQuietly();
        if (ownsProducer) {
            producer.close(Duration.ofSeconds(5));
        } else {
            producer.flush();
        }
    }
}
