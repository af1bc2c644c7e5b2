package dev.shaper.demo.embedded;

import dev.shaper.cli.BrokerCheck;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka broker (KRaft, combined broker and controller) in this JVM whose clients' listener is a port
 * the caller chooses, for trying the shaper without a Kafka install. {@link EmbeddedKafka} is the demo's, on ports
 * of its own choosing; this one is what {@code producer-demo broker} runs, so that the documented
 * {@code localhost:9092} works.
 */
public final class LocalBroker implements AutoCloseable {

    private static final String CONTROLLER = "CONTROLLER";
    private static final Duration READY_WAIT = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private LocalBroker(KafkaRaftServer server, String bootstrapServers) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Formats {@code directory} (created) and starts a broker on it, returning once it answers clients on
     * {@code port} of localhost.
     */
    public static LocalBroker start(Path directory, int port) throws Exception {
        Files.createDirectories(directory);
        String logDir = directory.toAbsolutePath().toString();
        int controllerPort = freePort();
        Map<String, Object> props = new HashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@localhost:" + controllerPort);
        props.put("listeners", "PLAINTEXT://localhost:" + port + "," + CONTROLLER + "://localhost:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
        props.put("controller.listener.names", CONTROLLER);
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
        props.put("log.dirs", logDir);
        // One broker: internal topics cannot be replicated.
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        // Topics are made on purpose (the shaper's topics create), not by a typo in a client's settings.
        props.put("auto.create.topics.enable", "false");
        KafkaConfig config = KafkaConfig.fromProps(toProperties(props));
        format(config, logDir);
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        String bootstrap = "localhost:" + port;
        try {
            BrokerCheck.requireAnswer(Map.of("bootstrap.servers", bootstrap), READY_WAIT);
        } catch (RuntimeException e) {
            server.shutdown();
            server.awaitShutdown();
            throw e;
        }
        return new LocalBroker(server, bootstrap);
    }

    private static java.util.Properties toProperties(Map<String, Object> map) {
        java.util.Properties properties = new java.util.Properties();
        properties.putAll(map);
        return properties;
    }

    /** Formats the storage as {@code kafka-storage.sh format} would, its progress lines not printed. */
    private static void format(KafkaConfig config, String logDir) throws Exception {
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                .setNodeId(config.nodeId())
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(logDir))
                .setMetadataLogDirectory(logDir)
                .setControllerListenerName(CONTROLLER)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .run();
    }

    /** A port nothing listens on now, for the controller's listener, which clients never use. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The clients' address, {@code localhost:PORT}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Stops the broker; its data stays in the directory given to {@link #start}. */
    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
