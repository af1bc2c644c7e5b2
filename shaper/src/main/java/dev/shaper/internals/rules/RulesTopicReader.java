package dev.shaper.internals.rules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an instance's rules in step with the rules topic ({@code shaper.rules.topic}): a plain consumer on a daemon
 * thread of its own, outside Kafka Streams (no repartition, no rebalance), that reads the compacted topic from its
 * beginning and, after each poll that changed a rule, publishes a new {@link RuleSet}: the rules file's rules first,
 * then the topic's in their order. The stream threads pick it up at their next look-up.
 *
 * <p>A record that is not a valid rule is refused whole: logged once with its id and why, counted, and the rule it
 * names keeps its previous version. Nothing a record holds stops the thread, and a failed poll is logged and retried.
 */
public final class RulesTopicReader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RulesTopicReader.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    /** The pause after a failed poll, so that a lasting failure (no broker, no rights) does not spin. */
    private static final long RETRY_PAUSE_MS = 1_000;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final Map<String, Object> consumerSettings;
    private final String topic;
    private final RuleSet fileRules;
    private final LiveRules target;
    private final TopicRules topicRules = new TopicRules();
    private KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;
    private volatile boolean closing;
    private volatile long applied;
    private volatile long refused;
    private volatile int inForce;

    /**
     * A reader, not yet reading (see {@link #start}).
     *
     * @param clientSettings the client settings to reach the cluster ({@code bootstrap.servers}, security)
     * @param fileRules      the rules file's rules and the defaults: the topic's rules come after them
     * @param target         where each new version of the rules goes; must be updatable
     */
    public RulesTopicReader(Map<String, ?> clientSettings, String topic, RuleSet fileRules, LiveRules target) {
        if (!target.isUpdatable()) {
            throw new IllegalArgumentException("the rules topic needs updatable rules");
        }
        this.consumerSettings = RulesTopicLog.consumerSettings(clientSettings, "shaper-rules-reader");
        this.topic = topic;
        this.fileRules = fileRules;
        this.target = target;
    }

    /**
     * Reads the topic to its end and publishes the rules it holds, then goes on reading on a daemon thread. Kafka
     * Streams starts after this, so that no record is shaped by rules the topic has already replaced.
     *
     * @throws RulesTopicLog.MissingTopicException when the topic does not exist
     * @throws org.apache.kafka.common.errors.TimeoutException when the brokers do not answer within
     *         {@code timeout}
     */
    public synchronized void start(Duration timeout) {
        if (consumer != null) {
            throw new IllegalStateException("the rules reader is already started");
        }
        KafkaConsumer<byte[], byte[]> started = RulesTopicLog.consumer(consumerSettings);
        try {
            RulesTopicLog.assignFromBeginning(started, topic, timeout);
            List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
            RulesTopicLog.readToEnd(started, timeout, all::add);
            apply(all);
        } catch (RuntimeException e) {
            started.close(Duration.ZERO);
            throw e;
        }
        LOG.info("Rules: read {} to its end ({} partition(s)): {} rule(s) of the topic in force after the rules"
                + " file's {}", topic, started.assignment().size(), topicRules.size(), fileRules.rules().size());
        consumer = started;
        // From here on only the reader's thread touches the consumer (but for wakeup(), which is thread-safe).
        thread = new Thread(this::run, "shaper-rules-reader");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        boolean failing = false;
        while (!closing) {
            try {
                List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
                consumer.poll(POLL_TIMEOUT).forEach(batch::add);
                apply(batch);
                if (failing) {
                    LOG.info("Rules: reading {} again", topic);
                    failing = false;
                }
            } catch (WakeupException | InterruptException e) {
                break; // close() woke us up; anything else that interrupts the thread ends it too
            } catch (KafkaException e) {
                if (!failing) {
                    LOG.warn("Rules: cannot read {} ({}); the rules in force stay, retrying every {} ms", topic,
                            e.toString(), RETRY_PAUSE_MS);
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
            LOG.debug("Rules: closing the consumer failed", e);
        }
    }

    /** Applies a batch of records in offset order, and publishes one new version if any changed a rule. */
    void apply(List<ConsumerRecord<byte[], byte[]>> records) {
        boolean changed = false;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            changed |= apply(record);
        }
        if (changed) {
            List<KeyRule> rules = new ArrayList<>(fileRules.rules());
            rules.addAll(topicRules.keyRules());
            target.publish(fileRules.withRules(rules));
            inForce = topicRules.size();
        }
    }

    private boolean apply(ConsumerRecord<byte[], byte[]> record) {
        RuleRecord.Change change;
        try {
            change = RuleRecord.parse(record.key(), record.value(), fileRules);
        } catch (RuleRecord.InvalidRuleException e) {
            refused++;
            LOG.warn("Rules: refused the record at {}-{}@{}: {}; {}", record.topic(), record.partition(),
                    record.offset(), e.getMessage(), e.id() == null ? "it changes nothing"
                            : "rule \"" + e.id() + "\" stays as it was");
            return false;
        }
        boolean changed = topicRules.apply(change);
        if (changed) {
            applied++;
            if (change instanceof RuleRecord.Put put) {
                LOG.info("Rules: rule \"{}\" set at order {}: {}", put.id(), put.order(), put.json());
            } else {
                LOG.info("Rules: rule \"{}\" deleted", change.id());
            }
        }
        return changed;
    }

    private boolean pause() {
        try {
            Thread.sleep(RETRY_PAUSE_MS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Records that changed a rule so far. */
    public long appliedRecords() {
        return applied;
    }

    /** Records refused as invalid so far. */
    public long refusedRecords() {
        return refused;
    }

    /** Rules of the topic in force now. */
    public int topicRules() {
        return inForce;
    }

    /** Stops reading and closes the consumer; waits a few seconds for the thread to end. */
    @Override
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
