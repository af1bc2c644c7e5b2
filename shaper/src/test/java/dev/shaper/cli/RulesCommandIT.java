package dev.shaper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.rules.RulesTopicLog;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The {@code rules} command against a real broker: what it publishes is what a shaper reads, and only that. */
@Timeout(120)
class RulesCommandIT {

    private static final Map<String, String> COMPACTED = Map.of("cleanup.policy", "compact");

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    private ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String topic, String... args) {
        out = new ByteArrayOutputStream();
        err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--topic", topic, "--timeout-ms", "20000"));
        return RulesCommand.run(all.toArray(String[]::new), Map.of("STREAMS_BOOTSTRAP_SERVERS",
                broker.bootstrapServers()), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The topic's records as a shaper reads them: key and value text, in offset order. */
    private List<String> records(String topic) {
        List<String> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = RulesTopicLog.consumer(RulesTopicLog.consumerSettings(
                Map.of("bootstrap.servers", broker.bootstrapServers()), "rules-command-it"))) {
            RulesTopicLog.assignFromBeginning(consumer, topic, Duration.ofSeconds(20));
            RulesTopicLog.readToEnd(consumer, Duration.ofSeconds(20), (ConsumerRecord<byte[], byte[]> r) ->
                    records.add(new String(r.key(), StandardCharsets.UTF_8) + "=" + (r.value() == null ? "null"
                            : new String(r.value(), StandardCharsets.UTF_8))));
        }
        return records;
    }

    @Test
    void shouldPutListAndDeleteARule() {
        broker.createTopics(1, COMPACTED, "rules-put");

        assertThat(run("rules-put", "put", "vip", "{\"exact\": \"tenant-vip\", \"rate\": 400}", "--order", "5"))
                .isZero();
        assertThat(out()).contains("rule \"vip\" added at order 5");
        assertThat(records("rules-put")).containsExactly(
                "vip={\"order\":5,\"exact\":\"tenant-vip\",\"rate\":400}");

        // The same rule again publishes nothing
        assertThat(run("rules-put", "put", "vip", "{\"order\": 5, \"exact\": \"tenant-vip\", \"rate\": 400}"))
                .isZero();
        assertThat(out()).contains("rule \"vip\" unchanged");
        assertThat(records("rules-put")).hasSize(1);

        assertThat(run("rules-put", "put", "bulk", "{\"prefix\": \"bulk-\", \"rate\": 2}")).isZero();
        assertThat(run("rules-put", "list")).isZero();
        assertThat(out().lines().toList()).containsExactly(
                "ORDER    ID                             RULE",
                "0        bulk                           {\"prefix\":\"bulk-\",\"rate\":2}",
                "5        vip                            {\"exact\":\"tenant-vip\",\"rate\":400}");

        assertThat(run("rules-put", "delete", "vip")).isZero();
        assertThat(out()).contains("rule \"vip\" deleted");
        assertThat(records("rules-put")).last().isEqualTo("vip=null");
        assertThat(run("rules-put", "delete", "vip")).isZero();
        assertThat(out()).contains("no rule \"vip\" on rules-put; nothing deleted");
        assertThat(records("rules-put")).hasSize(3);
    }

    @Test
    void shouldPushAFileAndPruneWhatItDoesNotName(@TempDir Path dir) throws Exception {
        broker.createTopics(1, COMPACTED, "rules-push");
        assertThat(run("rules-push", "put", "old", "{\"prefix\": \"old-\"}")).isZero();
        Path file = dir.resolve("rules.yaml");
        Files.writeString(file, """
                rules:
                  - id: vip
                    exact: tenant-vip
                    rate: 400
                  - id: bulk
                    order: 7
                    prefix: bulk-
                    rate: 0.5
                    priority: 1
                """);

        assertThat(run("rules-push", "push", file.toString(), "--prune")).isZero();
        assertThat(out()).contains("2 rule(s) set, 0 unchanged, 1 deleted");
        assertThat(run("rules-push", "list")).isZero();
        assertThat(out().lines().skip(1).map(line -> line.split("\\s+")[1])).containsExactly("vip", "bulk");

        // Pushed again: nothing changes
        int records = records("rules-push").size();
        assertThat(run("rules-push", "push", file.toString())).isZero();
        assertThat(out()).contains("0 rule(s) set, 2 unchanged");
        assertThat(records("rules-push")).hasSize(records);
    }

    @Test
    void shouldListWhatAShaperWouldRefuse() throws Exception {
        broker.createTopics(1, COMPACTED, "rules-refused");
        assertThat(run("rules-refused", "put", "a", "{\"prefix\": \"a\", \"rate\": 3}")).isZero();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                broker.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            // Written past the command, as a mistaken client could
            producer.send(new ProducerRecord<>("rules-refused", "a".getBytes(StandardCharsets.UTF_8),
                    "{\"prefix\": \"a\", \"rate\": 0}".getBytes(StandardCharsets.UTF_8))).get();
        }

        assertThat(run("rules-refused", "list")).isZero();
        assertThat(out()).contains("{\"prefix\":\"a\",\"rate\":3}");
        assertThat(err()).contains("refused by the shaper, which keeps the version above: rule \"a\": rate is 0.0");
    }

    @Test
    void shouldExitWithTheKafkaCodeWhenTheTopicIsMissing() {
        assertThat(run("no-such-rules", "list")).isEqualTo(RulesCommand.EXIT_KAFKA);
        assertThat(err()).contains("the rules topic no-such-rules does not exist");
    }
}
