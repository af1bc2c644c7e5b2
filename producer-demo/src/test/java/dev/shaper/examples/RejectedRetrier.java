package dev.shaper.examples;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Reads the shaper's rejected topic and publishes each record that may be retried to the input topic again, once its
 * {@code shaper.retry.after.ms} has passed (docs/clients.md). Records that may not be retried, or that failed too
 * often, go to {@code giveUp}. It needs nothing but kafka-clients.
 *
 * <p>At least once: a crash between a retry's send and the commit of its offset sends it again, which the database
 * writer's idempotent write absorbs. Offsets are committed only past records that are done (retried or given up).
 */
public final class RejectedRetrier implements Runnable, AutoCloseable {

    // [headers]
    static final String REASON = "shaper.reason";
    static final String RETRY_AFTER_MS = "shaper.retry.after.ms";
    /** Present when the rejected topic could not take the record whole: what is missing cannot be retried. */
    static final String OMITTED = "shaper.omitted";
    /** The client's own count of attempts (any header that is not the shaper's passes through the shaper). */
    static final String ATTEMPT = "retry.attempt";
    // [/headers]

    /** The first backoff, doubled per attempt up to {@link #MAX_BACKOFF_MS}. */
    static final long BACKOFF_MS = 100;
    static final long MAX_BACKOFF_MS = 30_000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String rejectedTopic;
    private final String inputTopic;
    private final int maxAttempts;
    private final Consumer<ConsumerRecord<byte[], byte[]>> giveUp;
    private final PriorityQueue<Pending> pending = new PriorityQueue<>();
    private final Offsets offsets = new Offsets();
    private final AtomicLong retried = new AtomicLong();
    private volatile boolean running = true;

    /** A record waiting for its retry. */
    private record Pending(long dueMs, ConsumerRecord<byte[], byte[]> record, int attempt)
            implements Comparable<Pending> {
        @Override
        public int compareTo(Pending other) {
            return Long.compare(dueMs, other.dueMs);
        }
    }

    public RejectedRetrier(String bootstrapServers, String groupId, String rejectedTopic, String inputTopic,
                           int maxAttempts, Consumer<ConsumerRecord<byte[], byte[]>> giveUp) {
        this.consumer = new KafkaConsumer<>(consumerConfig(bootstrapServers, groupId));
        this.producer = new KafkaProducer<>(producerConfig(bootstrapServers));
        this.rejectedTopic = rejectedTopic;
        this.inputTopic = inputTopic;
        this.maxAttempts = maxAttempts;
        this.giveUp = giveUp;
    }

    // [config]
    static Properties consumerConfig(String bootstrapServers, String groupId) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        // The shaper writes under exactly-once: read only what it committed.
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // Offsets are committed by hand, once a record's retry has been sent.
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return config;
    }

    static Properties producerConfig(String bootstrapServers) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return config;
    }
    // [/config]

    // [loop]
    @Override
    public void run() {
        consumer.subscribe(List.of(rejectedTopic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // Their records are read again by the next owner from the last committed offset.
                consumer.commitSync(offsets.committable(partitions));
                pending.removeIf(p -> partitions.contains(partition(p.record())));
                offsets.forget(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            }
        });
        try {
            while (running) {
                long waitMs = pending.isEmpty() ? 500 : Math.max(0, pending.peek().dueMs() - System.currentTimeMillis());
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(Math.min(500, waitMs)))) {
                    offsets.started(record);
                    accept(record);
                }
                retryDue();
                consumer.commitSync(offsets.committable(consumer.assignment()));
                // Hold the reading back while many records wait, rather than keeping them all in memory.
                if (pending.size() > 10_000) {
                    consumer.pause(consumer.assignment());
                } else {
                    consumer.resume(consumer.paused());
                }
            }
        } catch (WakeupException e) {
            // close() was called
        } finally {
            consumer.close();
            producer.close();
        }
    }

    private void accept(ConsumerRecord<byte[], byte[]> record) {
        String retryAfter = header(record.headers(), RETRY_AFTER_MS);
        int attempt = header(record.headers(), ATTEMPT) == null ? 0 : Integer.parseInt(header(record.headers(), ATTEMPT));
        if (retryAfter == null || header(record.headers(), OMITTED) != null || attempt >= maxAttempts) {
            // QUEUE_FULL, DELAY_EXCEEDED and RATE_LIMITED carry a retry-after; the other reasons never succeed.
            giveUp.accept(record);
            offsets.done(record);
            return;
        }
        // The wait counts from the rejection, a little before this read: waiting it from now is on the safe side.
        // It is the least wait for this record alone; records rejected together would all come back together and
        // most would be rejected again, so each also waits a random part of a backoff that doubles per attempt.
        long backoffMs = Math.min(MAX_BACKOFF_MS, BACKOFF_MS << Math.min(attempt, 20));
        long waitMs = Long.parseLong(retryAfter) + ThreadLocalRandom.current().nextLong(backoffMs + 1);
        pending.add(new Pending(System.currentTimeMillis() + waitMs, record, attempt + 1));
    }

    private void retryDue() {
        while (!pending.isEmpty() && pending.peek().dueMs() <= System.currentTimeMillis()) {
            Pending due = pending.poll();
            ConsumerRecord<byte[], byte[]> rejected = due.record();
            ProducerRecord<byte[], byte[]> retry = new ProducerRecord<>(inputTopic, null, rejected.key(),
                    rejected.value());
            for (Header h : rejected.headers()) {
                // The record's own headers, shaper.cost among them; the shaper would drop the others from input.
                boolean shapers = h.key().startsWith("shaper.") && !h.key().equals("shaper.cost");
                if (!shapers && !h.key().equals(ATTEMPT)) {
                    retry.headers().add(h);
                }
            }
            retry.headers().add(ATTEMPT, Integer.toString(due.attempt()).getBytes(StandardCharsets.UTF_8));
            try {
                producer.send(retry).get(); // acknowledged before its offset may be committed
            } catch (Exception e) {
                throw new IllegalStateException("cannot publish a retry to " + inputTopic, e);
            }
            retried.incrementAndGet();
            offsets.done(rejected);
        }
    }
    // [/loop]

    /** Records published to the input topic again so far. */
    public long retried() {
        return retried.get();
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }

    private static String header(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static TopicPartition partition(ConsumerRecord<?, ?> record) {
        return new TopicPartition(record.topic(), record.partition());
    }

    /** Per partition, the records read but not done yet, and what may be committed: up to the first of them. */
    private static final class Offsets {
        private final Map<TopicPartition, TreeSet<Long>> open = new HashMap<>();
        private final Map<TopicPartition, Long> next = new HashMap<>();

        void started(ConsumerRecord<?, ?> record) {
            open.computeIfAbsent(partition(record), p -> new TreeSet<>()).add(record.offset());
            next.put(partition(record), record.offset() + 1);
        }

        void done(ConsumerRecord<?, ?> record) {
            open.getOrDefault(partition(record), new TreeSet<>()).remove(record.offset());
        }

        Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            for (TopicPartition p : partitions) {
                TreeSet<Long> waiting = open.get(p);
                Long offset = waiting == null || waiting.isEmpty() ? next.get(p) : waiting.first();
                if (offset != null) {
                    commit.put(p, new OffsetAndMetadata(offset));
                }
            }
            return commit;
        }

        void forget(Collection<TopicPartition> partitions) {
            partitions.forEach(p -> {
                open.remove(p);
                next.remove(p);
            });
        }
    }
}
