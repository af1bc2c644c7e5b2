package dev.shaper.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Watches, on its own thread, the input offsets an application has committed (its consumer group), to tell
 * when it had consumed its whole input. Comparing that moment with the last output shows whether the end of
 * a run was spent reading input or waiting for queued records to be released (the drain).
 *
 * <p>Under exactly-once the offsets are committed with each transaction (every {@code commit.interval.ms}),
 * so the time is accurate to about one commit interval; under at-least-once the default interval is 30 s and
 * the figure says little.
 */
final class InputProgressProbe implements AutoCloseable {

    private static final long POLL_MS = 50;

    private final Admin admin;
    private final String groupId;
    private final String inputTopic;
    private final long expected;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long committed;
    private volatile long completeNanos;

    InputProgressProbe(Admin admin, String groupId, String inputTopic, long expected) {
        this.admin = admin;
        this.groupId = groupId;
        this.inputTopic = inputTopic;
        this.expected = expected;
        this.thread = new Thread(this::run, "bench-input-progress");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        while (running && completeNanos == 0) {
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(groupId)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                long sum = 0;
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                    if (e.getKey().topic().equals(inputTopic) && e.getValue() != null) {
                        sum += e.getValue().offset();
                    }
                }
                committed = sum;
                if (sum >= expected) {
                    completeNanos = System.nanoTime();
                }
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // the group may not exist yet; try again
                try {
                    Thread.sleep(POLL_MS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Input offsets committed so far, summed over the partitions. */
    long committed() {
        return committed;
    }

    /** {@link System#nanoTime()} when the committed offsets first covered the whole input; 0 if not yet. */
    long completeNanos() {
        return completeNanos;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(10_000);
    }
}
