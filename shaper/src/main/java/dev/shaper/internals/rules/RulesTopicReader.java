package dev.shaper.internals.rules;

import dev.shaper.internals.kafka.PollingThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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

    private final Map<String, Object> consumerSettings;
    private final String topic;
    private final RuleSet fileRules;
    private final LiveRules target;
    private final TopicRules topicRules = new TopicRules();
    private final PollingThread polling;
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
        this.polling = new PollingThread("shaper-rules-reader", topic, LOG, "Rules",
                "the rules in force stay, retrying every {} ms");
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
        if (polling.isStarted()) {
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
        polling.start(started, records -> {
            List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
            records.forEach(batch::add);
            apply(batch);
        });
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

    /**
     * Stops reading and closes the consumer; waits a few seconds for the thread to end. Synchronized: a close during
     * {@link #start} waits for the thread to be started, then stops it.
     */
    @Override
    public synchronized void close() {
        polling.close();
    }
}
