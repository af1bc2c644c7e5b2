package dev.shaper.testsupport;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A real Kafka broker for integration tests: a Testcontainers {@code apache/kafka} container where a Docker
 * engine answers, otherwise a single-node KRaft broker in this JVM (Kafka's own {@link KafkaClusterTestKit}).
 * Either way the tests talk to it over the network through {@link #bootstrapServers()}, so none is skipped
 * for lack of Docker. Set {@code -Dshaper.test.broker=embedded} to skip the Docker probe.
 *
 * <p>{@link #startEmbedded()} always runs the broker in this JVM: that one can be stopped and started again on
 * the same port with its logs kept ({@link #stopBroker()}, {@link #startBroker(String...)}), as a broker restart.
 *
 * <p>{@link #startEmbeddedSecured(TestCertificates)} runs it in this JVM with listeners as a production cluster has
 * them: SASL_SSL with SCRAM-SHA-512, mutual TLS (a client certificate signed by the CA), and an authorizer that
 * denies what no ACL allows. Its users are
 * made with {@link #createScramUser}; the tests' own clients ({@link #admin()}) keep the plain-text listener, whose
 * anonymous user is a super user.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
    private static final String IMAGE = "apache/kafka:4.1.0";

    /** Topic config that stamps each record with the time the broker appended it. */
    public static final Map<String, String> APPEND_TIME = Map.of("message.timestamp.type", "LogAppendTime");

    /** The name of the SASL_SSL listener of {@link #startEmbeddedSecured}. */
    private static final String SECURED_LISTENER = "SECURED";
    /** The name of the mutual-TLS listener of {@link #startEmbeddedSecured}. */
    private static final String MUTUAL_TLS_LISTENER = "MTLS";
    /** The SASL mechanism of the SASL_SSL listener. */
    public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

    private final AutoCloseable resource;
    private final String bootstrapServers;
    /** The in-JVM cluster, or null for a container. */
    private final KafkaClusterTestKit cluster;
    /** The CA and server certificate of the SASL_SSL listener, or null without one. */
    private final TestCertificates certificates;

    private KafkaBroker(AutoCloseable resource, String bootstrapServers, KafkaClusterTestKit cluster) {
        this(resource, bootstrapServers, cluster, null);
    }

    private KafkaBroker(AutoCloseable resource, String bootstrapServers, KafkaClusterTestKit cluster,
                        TestCertificates certificates) {
        this.resource = resource;
        this.bootstrapServers = bootstrapServers;
        this.cluster = cluster;
        this.certificates = certificates;
    }

    public static KafkaBroker start() {
        if (!"embedded".equals(System.getProperty("shaper.test.broker")) && dockerAvailable()) {
            KafkaContainer container = new KafkaContainer(IMAGE);
            container.start();
            LOG.info("Kafka broker: container {} at {}", IMAGE, container.getBootstrapServers());
            return new KafkaBroker(container, container.getBootstrapServers(), null);
        }
        return startEmbedded();
    }

    /** A single-node KRaft broker in this JVM, whether Docker answers or not. */
    public static KafkaBroker startEmbedded() {
        try {
            KafkaClusterTestKit cluster = embeddedBuilder().build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            LOG.info("Kafka broker: in-JVM KRaft at {}", cluster.bootstrapServers());
            return new KafkaBroker(cluster, cluster.bootstrapServers(), cluster);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the in-JVM Kafka broker", e);
        }
    }

    /**
     * A single-node KRaft broker in this JVM with, beside its plain-text listener ({@link #bootstrapServers()}, for
     * the tests' own clients, whose anonymous user is a super user), a SASL_SSL listener
     * ({@link #securedBootstrapServers()}): TLS with the server certificate of {@code certificates}, SCRAM-SHA-512
     * users ({@link #createScramUser}), and Kafka's {@code StandardAuthorizer}, which allows a user only what an ACL
     * allows it.
     */
    public static KafkaBroker startEmbeddedSecured(TestCertificates certificates) {
        String listener = "listener.name." + SECURED_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".";
        String mutual = "listener.name." + MUTUAL_TLS_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".";
        try {
            KafkaClusterTestKit cluster = embeddedBuilder()
                    .setConfigProp("listeners", "EXTERNAL://localhost:0,CONTROLLER://localhost:0,"
                            + SECURED_LISTENER + "://localhost:0," + MUTUAL_TLS_LISTENER + "://localhost:0")
                    .setConfigProp("listener.security.protocol.map", "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,"
                            + SECURED_LISTENER + ":SASL_SSL," + MUTUAL_TLS_LISTENER + ":SSL")
                    // Mutual TLS: a client must show a certificate signed by the CA; its DN is its principal
                    .setConfigProp(mutual + "ssl.client.auth", "required")
                    .setConfigProp(mutual + "ssl.keystore.location", certificates.keyStore().toString())
                    .setConfigProp(mutual + "ssl.keystore.type", "PKCS12")
                    .setConfigProp(mutual + "ssl.keystore.password", certificates.storePassword())
                    .setConfigProp(mutual + "ssl.key.password", certificates.storePassword())
                    .setConfigProp(mutual + "ssl.truststore.location", certificates.trustStore().toString())
                    .setConfigProp(mutual + "ssl.truststore.type", "PKCS12")
                    .setConfigProp(mutual + "ssl.truststore.password", certificates.storePassword())
                    .setConfigProp(listener + "sasl.enabled.mechanisms", SCRAM_MECHANISM)
                    .setConfigProp(listener + SCRAM_MECHANISM.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
                            "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                    .setConfigProp(listener + "ssl.keystore.location", certificates.keyStore().toString())
                    .setConfigProp(listener + "ssl.keystore.type", "PKCS12")
                    .setConfigProp(listener + "ssl.keystore.password", certificates.storePassword())
                    .setConfigProp(listener + "ssl.key.password", certificates.storePassword())
                    .setConfigProp("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                    .setConfigProp("allow.everyone.if.no.acl.found", "false")
                    // The plain-text listeners (the tests' clients, the controller) authenticate no one.
                    .setConfigProp("super.users", "User:ANONYMOUS")
                    .build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            KafkaBroker broker = new KafkaBroker(cluster, cluster.bootstrapServers(), cluster, certificates);
            LOG.info("Kafka broker: in-JVM KRaft at {}, SASL_SSL ({}) at {}, mutual TLS at {}",
                    cluster.bootstrapServers(), SCRAM_MECHANISM, broker.securedBootstrapServers(),
                    broker.mutualTlsBootstrapServers());
            return broker;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the in-JVM Kafka broker with a SASL_SSL listener", e);
        }
    }

    private static KafkaClusterTestKit.Builder embeddedBuilder() {
        return new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("auto.create.topics.enable", "false");
    }

    /** {@code localhost:<port>} of the SASL_SSL listener of a broker from {@link #startEmbeddedSecured}. */
    public String securedBootstrapServers() {
        if (certificates == null) {
            throw new IllegalStateException("only a broker from startEmbeddedSecured() has a SASL_SSL listener");
        }
        return "localhost:" + embeddedBroker().boundPort(new org.apache.kafka.common.network.ListenerName(
                SECURED_LISTENER));
    }

    /** {@code localhost:<port>} of the mutual-TLS listener of a broker from {@link #startEmbeddedSecured}. */
    public String mutualTlsBootstrapServers() {
        if (certificates == null) {
            throw new IllegalStateException("only a broker from startEmbeddedSecured() has a mutual-TLS listener");
        }
        return "localhost:" + embeddedBroker().boundPort(new org.apache.kafka.common.network.ListenerName(
                MUTUAL_TLS_LISTENER));
    }

    /**
     * The settings a client needs on the mutual-TLS listener with the client certificate of the certificates
     * ({@link TestCertificates#clientKeyStore()}, principal {@code User:CN=shaper}): {@code security.protocol=SSL},
     * its key store and the trust store of the CA. Bootstrap servers not included.
     */
    public Map<String, String> mutualTlsClientSettings() {
        if (certificates == null) {
            throw new IllegalStateException("only a broker from startEmbeddedSecured() has a mutual-TLS listener");
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("security.protocol", "SSL");
        settings.put("ssl.keystore.location", certificates.clientKeyStore().toString());
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.password", certificates.storePassword());
        settings.put("ssl.key.password", certificates.storePassword());
        settings.put("ssl.truststore.location", certificates.trustStore().toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", certificates.storePassword());
        return settings;
    }

    /**
     * The settings a client needs on the SASL_SSL listener as {@code user}: {@code security.protocol},
     * {@code sasl.mechanism}, {@code sasl.jaas.config} and the trust store of the listener's CA (PKCS12, with its
     * password). Bootstrap servers not included.
     */
    public Map<String, String> securedClientSettings(String user, String password) {
        if (certificates == null) {
            throw new IllegalStateException("only a broker from startEmbeddedSecured() has a SASL_SSL listener");
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", SCRAM_MECHANISM);
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"" + user + "\" password=\"" + password + "\";");
        settings.put("ssl.truststore.location", certificates.trustStore().toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", certificates.storePassword());
        return settings;
    }

    /**
     * Creates (or replaces) a SCRAM-SHA-512 user through the Admin API and returns once the SASL_SSL listener lets
     * it in (the broker learns of credentials from the metadata log, a moment after the change is accepted).
     */
    public void createScramUser(String user, String password) {
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                    user, new org.apache.kafka.clients.admin.ScramCredentialInfo(
                            org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 4096), password)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the SCRAM user " + user, e);
        }
        Map<String, Object> asUser = new HashMap<>(securedClientSettings(user, password));
        asUser.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, securedBootstrapServers());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Admin admin = Admin.create(asUser)) {
                admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the SASL_SSL listener still refuses " + user + " after 30 s", e);
                }
            }
            try {
                Thread.sleep(100); // the broker's credential cache: nothing to advance
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + user + " to be let in", e);
            }
        }
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Shuts the broker down (the node's controller keeps running): clients lose their connections, and the
     * group and transaction coordinators go with it. Its log directories and its port are kept for
     * {@link #startBroker(String...)}. Only for a broker from {@link #startEmbedded()}.
     */
    public void stopBroker() {
        BrokerServer server = embeddedBroker();
        server.shutdown();
        server.awaitShutdown();
        LOG.info("Kafka broker stopped; its controller runs on");
    }

    /**
     * Starts the broker that {@link #stopBroker()} stopped, on the same port and with the same logs, and waits
     * until it answers and every partition of {@code topics} has a leader again.
     */
    public void startBroker(String... topics) {
        BrokerServer server = embeddedBroker();
        int before = Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
        server.startup();
        int after = port(server);
        if (after != before) {
            throw new IllegalStateException("the broker came back on port " + after + ", not " + before);
        }
        try (Admin admin = admin()) {
            awaitLeaders(admin, List.of(topics));
        } catch (Exception e) {
            throw new IllegalStateException("the restarted broker does not lead " + List.of(topics), e);
        }
        LOG.info("Kafka broker started again on port {}", after);
    }

    private BrokerServer embeddedBroker() {
        if (cluster == null) {
            throw new IllegalStateException("only a broker from startEmbedded() can be stopped and started");
        }
        return cluster.brokers().values().iterator().next();
    }

    private int port(BrokerServer server) {
        return server.boundPort(cluster.nodes().brokerListenerName());
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** Creates topics with {@code partitions} partitions each, replication factor 1. */
    public void createTopics(int partitions, String... names) {
        createTopics(partitions, Map.of(), names);
    }

    /**
     * Creates topics with {@code partitions} partitions each, replication factor 1 and these topic configs.
     * The shaper's tests give output topics {@link #APPEND_TIME} to see when records reached the topic.
     */
    public void createTopics(int partitions, Map<String, String> configs, String... names) {
        try (Admin admin = admin()) {
            admin.createTopics(java.util.Arrays.stream(names)
                    .map(n -> new NewTopic(n, partitions, (short) 1).configs(configs)).toList())
                    .all().get(60, TimeUnit.SECONDS);
            awaitLeaders(admin, List.of(names));
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topics " + List.of(names), e);
        }
    }

    /**
     * Waits until every partition of {@code names} has a leader in the broker's metadata. A producer that writes
     * to a topic the moment its creation returns may be told NOT_LEADER_OR_FOLLOWER; seen once here, the
     * idempotent producer's retry of that first batch then failed with OUT_OF_ORDER_SEQUENCE_NUMBER for good,
     * and the test waited for records that never came.
     */
    private static void awaitLeaders(Admin admin, List<String> names) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, TopicDescription> topics;
            try {
                topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
                    throw e;
                }
                topics = null; // created, but not in the broker's metadata yet
            }
            boolean led = topics != null && topics.values().stream().allMatch(d -> d.partitions().stream()
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
            if (led && leadersServe(admin, topics)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("partitions of " + names + " still have no leader after 30 s");
            }
            Thread.sleep(20); // the broker's metadata: nothing to advance
        }
    }

    /**
     * Whether each partition's leader answers a request of its own (the latest offset): the metadata can name a
     * leader a moment before its partition takes writes, and that moment is what the idempotent producer trips on.
     */
    private static boolean leadersServe(Admin admin, Map<String, TopicDescription> topics) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        topics.forEach((name, topic) -> topic.partitions().forEach(p ->
                latest.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        try {
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                return false; // not leading yet: asked again
            }
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        resource.close();
    }
}
