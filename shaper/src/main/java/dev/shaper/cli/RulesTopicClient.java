package dev.shaper.cli;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.rules.RuleRecord;
import dev.shaper.internals.rules.RulesTopicLog;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Reads the rules topic whole and publishes rule records, for the {@code rules} commands. */
final class RulesTopicClient {

    /**
     * The defaults a rule is checked against: the shaper's built-in ones, with no default admission. A rule that sets
     * {@code admission.burst} must then set {@code admission.rate} too, so that it is valid on any shaper.
     */
    static final ShapingRule DEFAULTS = new ShaperConfig(Map.of()).defaultShapingRule();

    private final TopicOptions options;

    RulesTopicClient(TopicOptions options) {
        this.options = options;
    }

    /**
     * Checks a rule record as the shaper will, before anything is published: under the token bucket and, for a rule
     * with admission limits but no {@code admission.algorithm}, under a window too, since that is the algorithm of a
     * shaper whose {@code shaper.admission.algorithm} is a window, which would refuse the rule (a burst, a rate
     * below 1).
     */
    static RuleRecord.Change check(String id, String value) {
        byte[] key = id.getBytes(StandardCharsets.UTF_8);
        byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        RuleRecord.Change change;
        try {
            change = RuleRecord.parse(key, bytes, DEFAULTS, null, AdmissionAlgorithm.TOKEN_BUCKET);
        } catch (RuleRecord.InvalidRuleException e) {
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "not published: " + e.getMessage());
        }
        if (change instanceof RuleRecord.Put put && put.rule().admission() != null
                && !put.fields().hasNonNull("admission.algorithm")) {
            try {
                RuleRecord.parse(key, bytes, DEFAULTS, null, AdmissionAlgorithm.FIXED_WINDOW);
            } catch (RuleRecord.InvalidRuleException e) {
                throw new CommandFailure(RulesCommand.EXIT_USAGE, "not published: a shaper whose"
                        + " shaper.admission.algorithm is a window would refuse it: " + e.getMessage() + "; name its"
                        + " \"admission.algorithm\": \"token-bucket\" so that every shaper reads it alike");
            }
        }
        return change;
    }

    /** What the topic holds now, read from its beginning to its end. */
    TopicContents read() {
        BrokerCheck.requireAnswer(options.clientSettings(), firstAnswerWait());
        Map<String, Object> settings = RulesTopicLog.consumerSettings(options.clientSettings(), "shaper-rules-cli");
        TopicContents contents = new TopicContents();
        try (KafkaConsumer<byte[], byte[]> consumer = RulesTopicLog.consumer(settings)) {
            RulesTopicLog.assignFromBeginning(consumer, options.topic, options.timeout());
            RulesTopicLog.readToEnd(consumer, options.timeout(), contents::add);
        } catch (RulesTopicLog.MissingTopicException e) {
            throw new CommandFailure(RulesCommand.EXIT_KAFKA, e.getMessage() + " (--topic)");
        }
        return contents;
    }

    /** Publishes {@code values} by rule id (a null value deletes), in order, and waits until the brokers have them. */
    void publish(List<Map.Entry<String, String>> values) {
        BrokerCheck.requireAnswer(options.clientSettings(), firstAnswerWait());
        Map<String, Object> settings = new HashMap<>(options.clientSettings());
        long timeoutMs = options.timeout().toMillis();
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeoutMs, 30_000));
        settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        settings.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "shaper-rules-cli");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Map.Entry<String, String> value : values) {
                sent.add(producer.send(new ProducerRecord<>(options.topic,
                        value.getKey().getBytes(StandardCharsets.UTF_8),
                        value.getValue() == null ? null : value.getValue().getBytes(StandardCharsets.UTF_8))));
            }
            for (Future<RecordMetadata> future : sent) {
                future.get(timeoutMs, TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
        } catch (TimeoutException e) {
            throw new CommandFailure(RulesCommand.EXIT_KAFKA, "the brokers did not take the records within "
                    + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure(1, "interrupted while publishing");
        }
    }

    /** How long to wait for a broker's first answer: {@link BrokerCheck#WAIT}, or less if the command waits less. */
    private Duration firstAnswerWait() {
        return options.timeout().compareTo(BrokerCheck.WAIT) < 0 ? options.timeout() : BrokerCheck.WAIT;
    }

    Duration timeout() {
        return options.timeout();
    }
}
