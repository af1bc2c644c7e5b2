package dev.shaper.internals.capacity.adaptive;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.kafka.GrouplessConsumer;
import dev.shaper.internals.kafka.PollingThread;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the feedback topic ({@code shaper.capacity.feedback.topic}) for the closed loop: a plain consumer on a daemon
 * thread of its own, outside any consumer group, since every instance needs every writer's report. It is assigned every
 * partition the topic has at the start, reads from the records of the last feedback timeout (older ones would be late
 * anyway), follows partitions added later (within {@link #PARTITION_CHECK_MS} or so, read from their start), and
 * hands each good report to a sink ({@link AdaptiveCapacity#onReport}). Malformed records are counted
 * and logged once per writer; nothing a record holds stops the thread, and a failed poll is logged and retried.
 *
 * <p>Read uncommitted: a report is a measurement, not a change of state, and the writers publish without transactions.
 */
public final class FeedbackListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FeedbackListener.class);
    /** How often the listener looks for partitions added to the topic; its metadata is refreshed as often. */
    static final long PARTITION_CHECK_MS = 5_000;

    private final Map<String, Object> consumerSettings;
    private final String topic;
    private final Duration lookBack;
    private final LongSupplier clockMs;
    private final FeedbackRecordHandler handler;
    private final PollingThread polling;
    /** When the polling thread looks for added partitions next; only that thread reads it. */
    private long nextPartitionCheckMs;

    /**
     * A listener, not yet reading (see {@link #start}).
     *
     * @param clientSettings the client settings to reach the cluster ({@code bootstrap.servers}, security); group
     *                       settings are dropped
     * @param lookBack       how far back to start reading: {@code shaper.capacity.feedback.timeout.ms}
     * @param sink           takes each good report with its writer's id and when it was received, on the listener's
     *                       thread
     * @param clockMs        the wall clock, epoch milliseconds, that the look-back and the receipts count by
     */
    public FeedbackListener(Map<String, ?> clientSettings, String topic, Duration lookBack,
                            FeedbackSink sink, LongSupplier clockMs) {
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("a feedback listener needs a topic");
        }
        this.consumerSettings = consumerSettings(clientSettings);
        this.topic = topic;
        this.lookBack = lookBack;
        this.clockMs = clockMs;
        this.handler = new FeedbackRecordHandler(sink, clockMs, lookBack.toMillis());
        this.polling = new PollingThread("shaper-feedback-listener", topic, LOG, "Feedback",
                "retrying every {} ms, logged again once it works");
    }

    private static Map<String, Object> consumerSettings(Map<String, ?> clientSettings) {
        Map<String, Object> settings = GrouplessConsumer.settings(clientSettings, "shaper-feedback-listener");
        // Where the look-back finds nothing, or the log was truncated under us: only new reports matter.
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        // Partitions added to the topic show in the metadata no later than this
        settings.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, (int) PARTITION_CHECK_MS);
        return settings;
    }

    /**
     * Assigns every partition of the topic, places each at the records of the last look-back, and starts reading on
     * a daemon thread.
     *
     * @throws ConfigException naming {@code shaper.capacity.feedback.topic} when the topic does not exist
     */
    public synchronized void start() {
        if (polling.isStarted()) {
            throw new IllegalStateException("the feedback listener is already started");
        }
        Consumer<byte[], byte[]> started = new KafkaConsumer<>(consumerSettings, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        try {
            List<PartitionInfo> partitions = started.partitionsFor(topic);
            if (partitions == null || partitions.isEmpty()) {
                throw new ConfigException(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, topic, "no such topic on the"
                        + " cluster; create it (one partition is enough) or leave the setting empty for no feedback");
            }
            List<TopicPartition> assigned = partitions.stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            started.assign(assigned);
            seekToLookBack(started, assigned);
        } catch (RuntimeException e) {
            started.close(Duration.ZERO);
            throw e;
        }
        LOG.info("Feedback: reading {} partition(s) of {} from {} ms back", started.assignment().size(), topic,
                lookBack.toMillis());
        nextPartitionCheckMs = clockMs.getAsLong() + PARTITION_CHECK_MS;
        polling.start(started, records -> {
            records.forEach(handler::handle);
            followAddedPartitions(started);
        });
    }

    /**
     * On the polling thread, every {@link #PARTITION_CHECK_MS}: assigns the partitions added to the topic since the
     * last look, from their start (all they hold was written since they were added). A failure to look is the poll's
     * failure: logged, retried.
     */
    private void followAddedPartitions(Consumer<byte[], byte[]> consumer) {
        long now = clockMs.getAsLong();
        if (now < nextPartitionCheckMs) {
            return;
        }
        nextPartitionCheckMs = now + PARTITION_CHECK_MS;
        List<PartitionInfo> partitions = consumer.partitionsFor(topic);
        if (partitions == null) {
            return;
        }
        Set<TopicPartition> assigned = consumer.assignment();
        List<TopicPartition> added = partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                .filter(tp -> !assigned.contains(tp)).toList();
        if (added.isEmpty()) {
            return;
        }
        Set<TopicPartition> all = new HashSet<>(assigned);
        all.addAll(added);
        consumer.assign(all);
        consumer.seekToBeginning(added);
        LOG.info("Feedback: {} partition(s) added to {}; reading them too ({} in all)", added.size(), topic,
                all.size());
    }

    private void seekToLookBack(Consumer<byte[], byte[]> started, List<TopicPartition> assigned) {
        long fromMs = clockMs.getAsLong() - lookBack.toMillis();
        Map<TopicPartition, Long> times = new HashMap<>();
        assigned.forEach(tp -> times.put(tp, fromMs));
        Map<TopicPartition, OffsetAndTimestamp> offsets = started.offsetsForTimes(times);
        for (TopicPartition tp : assigned) {
            OffsetAndTimestamp found = offsets.get(tp);
            if (found != null) {
                started.seek(tp, found.offset());
            } else {
                // Nothing written since: start with what comes next, resolved now (seekToEnd alone is lazy), so that
                // a report written between the start and the first poll is not skipped.
                started.seekToEnd(List.of(tp));
                started.position(tp);
            }
        }
    }

    /** Good reports handed to the sink so far. */
    public long reports() {
        return handler.reports();
    }

    /** Malformed records so far: without a key, or whose value is not a feedback report. */
    public long malformedRecords() {
        return handler.malformedRecords();
    }

    /** Polls that failed so far. */
    public long failedPolls() {
        return polling.failedPolls();
    }

    /** Whether the listener's thread is reading. */
    public boolean isRunning() {
        return polling.isRunning();
    }

    /**
     * Stops reading and closes the consumer; waits a few seconds for the thread to end. Synchronized: a close during
     * {@link #start} waits for the thread to be started, then stops it.
     */
    @Override
    public synchronized void close() {
        polling.close();
    }
}
