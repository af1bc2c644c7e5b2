package dev.shaper.internals.kafka;

import java.time.Duration;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;

/**
 * A daemon thread that polls a consumer of one topic until closed and hands each poll's records to a handler; for
 * readers that keep up with a topic beside Kafka Streams (the rules topic, the feedback topic). Nothing a record
 * holds should stop it: a failed poll is logged once, retried every {@link #RETRY_PAUSE_MS}, and logged again once
 * a poll works. When it ends it closes the consumer.
 */
public final class PollingThread {

    /** The pause after a failed poll, so that a lasting failure (no broker, no rights) does not spin. */
    public static final long RETRY_PAUSE_MS = 1_000;
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    /** Takes the records of one poll, on the polling thread. */
    @FunctionalInterface
    public interface Handler {
        void handle(ConsumerRecords<byte[], byte[]> records);
    }

    private final String threadName;
    private final String topic;
    private final Logger log;
    private final String label;
    private final String whileFailing;
    private Consumer<byte[], byte[]> consumer;
    private Thread thread;
    private volatile boolean closing;
    private volatile long failedPolls;

    /**
     * A thread, not yet polling (see {@link #start}).
     *
     * @param log          the reader's logger, which logs the thread's failures and recoveries
     * @param label        what starts each log line, e.g. {@code Rules}
     * @param whileFailing the end of the line a failed poll logs, with a {@code {}} for the retry pause in ms, e.g.
     *                     {@code the rules in force stay, retrying every {} ms}
     */
    public PollingThread(String threadName, String topic, Logger log, String label, String whileFailing) {
        this.threadName = threadName;
        this.topic = topic;
        this.log = log;
        this.label = label;
        this.whileFailing = whileFailing;
    }

    /** Whether {@link #start} was called. */
    public synchronized boolean isStarted() {
        return consumer != null;
    }

    /**
     * Starts polling {@code started}, assigned and placed, with {@code handler}. From here on only this thread
     * touches the consumer (but for wakeup(), which is thread-safe). After {@link #close} the thread ends at once.
     */
    public synchronized void start(Consumer<byte[], byte[]> started, Handler handler) {
        if (consumer != null) {
            throw new IllegalStateException(threadName + " is already started");
        }
        consumer = started;
        thread = new Thread(() -> run(handler), threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(Handler handler) {
        boolean failing = false;
        while (!closing) {
            try {
                handler.handle(consumer.poll(POLL_TIMEOUT));
                if (failing) {
                    log.info("{}: reading {} again", label, topic);
                    failing = false;
                }
            } catch (WakeupException | InterruptException e) {
                break; // close() woke us up; anything else that interrupts the thread ends it too
            } catch (KafkaException e) {
                failedPolls++;
                if (!failing) {
                    log.warn(label + ": cannot read {} ({}); " + whileFailing, topic, e.toString(), RETRY_PAUSE_MS);
                    failing = true;
                }
                if (!pause()) {
                    break;
                }
            }
        }
        try {
            consumer.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            log.debug("{}: closing the consumer failed", label, e);
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(RETRY_PAUSE_MS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Polls that failed so far. */
    public long failedPolls() {
        return failedPolls;
    }

    /** Whether the thread is polling. */
    public boolean isRunning() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Stops polling; waits a few seconds for the thread to end, having closed the consumer. */
    public void close() {
        Thread t;
        synchronized (this) {
            if (consumer == null || closing) {
                closing = true;
                return;
            }
            closing = true;
            t = thread;
        }
        consumer.wakeup();
        try {
            t.join(CLOSE_TIMEOUT.toMillis() * 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
