package dev.shaper.internals.cluster;

import dev.shaper.internals.processor.InputGate;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.TopicDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the input topic's partition count, which the application's state is laid out by: a key's queue lives in
 * the task of the partition its key hashes to, and the changelog topics have as many partitions as the input had.
 * Partitions added while the application runs move keys to partitions no task of its state covers (their records
 * would wait unprocessed), and Kafka Streams stops on the mismatch minutes later. So once the count differs from the
 * one the application started with, the watch logs an ERROR saying what to do, closes the input gate (arriving
 * records are rejected, the queues drain to the output) and takes readiness away. Checked every
 * {@link #PERIOD} on a daemon thread of its own; a failed check is retried at the next one.
 */
public final class InputPartitionWatch implements InputGate, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InputPartitionWatch.class);
    /** How often the input topic is described. */
    public static final Duration PERIOD = Duration.ofSeconds(5);

    private final String topic;
    private final int partitions;
    private final String applicationId;
    private final PeriodicTopicCheck checks;
    /** Why the gate is closed, once the count changed; null until then. */
    private volatile String closedBecause;

    private InputPartitionWatch(Map<String, Object> adminConfig, String topic, int partitions,
                                String applicationId) {
        this.topic = topic;
        this.partitions = partitions;
        this.applicationId = applicationId;
        this.checks = new PeriodicTopicCheck("shaper-input-partition-watch", adminConfig, PERIOD);
    }

    /**
     * Starts watching {@code topic}, which had {@code partitions} partitions when the application started.
     *
     * @param adminConfig the Admin client settings (bootstrap servers, security)
     */
    public static InputPartitionWatch start(Map<String, Object> adminConfig, String topic, int partitions,
                                            String applicationId) {
        InputPartitionWatch watch = new InputPartitionWatch(adminConfig, topic, partitions, applicationId);
        watch.checks.start(watch::check);
        return watch;
    }

    private void check() {
        if (closedBecause != null) {
            return;
        }
        try {
            TopicDescription description = checks.describe(topic);
            if (description == null) {
                return; // gone: the output topics' watch and Kafka Streams say so
            }
            int now = description.partitions().size();
            if (now != partitions) {
                changed(now);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("Input partitions: cannot describe {} now ({}); trying again in {} ms", topic, e.toString(),
                    PERIOD.toMillis());
        }
    }

    private void changed(int now) {
        closedBecause = "the input topic " + topic + " went from " + partitions + " to " + now + " partitions while"
                + " the shaper ran; it takes no new records until its operator has reset it";
        LOG.error("Input partitions: {} went from {} to {} partitions while this application ran. Its queues and"
                        + " changelog topics are laid out by {} partitions: records of keys now on the new partitions"
                        + " would wait unprocessed, and Kafka Streams will stop on the mismatch. From now on this"
                        + " instance rejects arriving records (reason INPUT_REPARTITIONED) and drains its queues to"
                        + " the output within max.delay.ms; it is not ready. Once shaper_queue_records is 0 on every"
                        + " instance: stop them all, reset the application's state without touching the input"
                        + " offsets (kafka-streams-application-reset.sh --application-id {}, no --input-topics), and"
                        + " start them again. See docs/operations.md, \"Adding input partitions\"", topic, partitions,
                now, partitions, applicationId);
    }

    @Override
    public String closedBecause() {
        return closedBecause;
    }

    @Override
    public void close() {
        checks.close();
    }
}
