package dev.shaper.demo.embedded;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) in this JVM, built from Kafka's own
 * jars with {@link KafkaClusterTestKit}: the demo needs nothing but Java. Clients reach it over loopback
 * through {@link #bootstrapServers()}. Its logs live under the directory given to {@link #start}, which
 * {@link #close()} deletes.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Topic config that stamps each record with the time the broker appended it (stands in for release time). */
    public static final Map<String, String> APPEND_TIME = Map.of("message.timestamp.type", "LogAppendTime");

    private static final Duration TOPIC_READY_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaClusterTestKit cluster;

    private EmbeddedKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Formats and starts a broker whose data lives in {@code directory} (created; must not hold a broker). */
    public static EmbeddedKafka start(Path directory) throws Exception {
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBaseDirectory(directory).build())
                // One broker: internal topics cannot be replicated.
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                // The demo's consumers join one at a time; waiting for more only delays the start.
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("auto.create.topics.enable", "false")
                .setDeleteOnClose(true)
                .build();
        try {
            formatQuietly(cluster);
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return new EmbeddedKafka(cluster);
    }

    /**
     * Formats the broker's storage. Kafka's formatter prints its progress to {@code System.out}, which is the
     * demo's console; nothing else runs yet, so standard output is silenced for that moment only (one broker at a
     * time, so that two in one JVM do not leave it silenced).
     */
    private static synchronized void formatQuietly(KafkaClusterTestKit cluster) throws Exception {
        PrintStream console = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            cluster.format();
        } finally {
            System.setOut(console);
        }
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /**
     * Creates topics of {@code partitions} partitions, replication factor 1, with these topic configs, and returns
     * once each partition's leader serves requests.
     */
    public void createTopics(int partitions, Map<String, String> configs, String... names) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            List<NewTopic> topics = Arrays.stream(names)
                    .map(n -> new NewTopic(n, partitions, (short) 1).configs(configs)).toList();
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
            awaitServing(admin, List.of(names));
        }
    }

    /**
     * Waits until every partition of {@code names} answers a request for its latest offset, which only its leader
     * does. Creation returns before the broker's metadata knows the topic: the shaper's start then found a topic
     * just created missing, and a producer that writes at once may be refused by a partition without a leader.
     */
    private static void awaitServing(Admin admin, List<String> names) throws Exception {
        long deadline = System.nanoTime() + TOPIC_READY_TIMEOUT.toNanos();
        while (!serving(admin, names)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the partitions of " + names + " have no leader after "
                        + TOPIC_READY_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(20); // the broker's metadata catches up on its own: nothing to advance
        }
    }

    private static boolean serving(Admin admin, List<String> names) throws Exception {
        try {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).forEach((name, topic) ->
                    topic.partitions().forEach(p -> latest.put(new TopicPartition(name, p.partition()),
                            OffsetSpec.latest())));
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false; // unknown topic or no leader yet: asked again
            }
            throw e;
        }
    }

    /** Stops the broker and deletes its data. */
    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
