package dev.shaper.internals.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce clients as the shaper wants them, for the admission's buckets and the capacity's leases alike: every
 * command bounded by the timeout, commands refused at once while disconnected (so that no stream thread waits for a
 * connection), reconnects at a fixed delay, and TLS with an optional file of trusted certificate authorities.
 *
 * <p>To one Redis server, or to a Redis Cluster ({@link RedisLocation}), whose client also follows the cluster's
 * topology: it reads it again every {@link #TOPOLOGY_REFRESH_PERIOD}, and at once (at most every {@link
 * #TOPOLOGY_REFRESH_GAP}) when Redis redirects a command (MOVED, ASK) or a node's connection keeps failing to come
 * back, so that a failover is followed; a node the cluster marks as failed is left out of the topology.
 */
public final class RedisClients {

    /**
     * How often a cluster client reads the topology with no reason to: the safety net for changes no command ran
     * into (a node added, a replica promoted by hand).
     */
    static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(30);
    /**
     * The least time between two topology reads that redirections or failed reconnects trigger, and between two that
     * a failing health check asks for ({@link RedisConnection#ping}).
     */
    static final Duration TOPOLOGY_REFRESH_GAP = Duration.ofSeconds(1);

    /**
     * How often Lettuce retries a lost connection, for a monitor that pings every {@code pingInterval}: a fifth
     * of it, so that a Redis that is back is connected again well before the next ping, and admission is back
     * on Redis within two ping intervals.
     */
    public static Duration reconnectDelayFor(Duration pingInterval) {
        return pingInterval.dividedBy(5);
    }

    /**
     * A client and the resources it owns (I/O and computation threads): one per instance, on which admission and the
     * capacity open their connections. Close it once, after every connection on it is closed.
     *
     * @param client      a {@link RedisClient}, or a {@link RedisClusterClient} for a Redis Cluster
     * @param timeout     the longest any command may take
     * @param description the URI without user or password, for logs
     */
    public record Client(AbstractRedisClient client, ClientResources resources, Duration timeout, String description)
            implements AutoCloseable {

        /** Whether the client talks to a Redis Cluster. */
        public boolean isCluster() {
            return client instanceof RedisClusterClient;
        }

        /** Opens a connection with {@code codec}: to the server, or to the cluster (its nodes as commands need). */
        public <K, V> RedisConnection<K, V> connect(RedisCodec<K, V> codec) {
            if (client instanceof RedisClusterClient cluster) {
                return new ClusterRedisConnection<>(cluster, cluster.connect(codec), codec, connectTimeout(timeout));
            }
            return new SingleRedisConnection<>(((RedisClient) client).connect(codec));
        }

        @Override
        public void close() {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private RedisClients() {
    }

    /**
     * @param uri            {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS; for a
     *                       Redis Cluster {@code redis-cluster://[user:password@]host:port[,host:port...]} (any of
     *                       its nodes: the client learns the others) or {@code rediss-cluster://...} for TLS
     * @param timeout        the longest any command may take; a slower Redis counts as down
     * @param reconnectDelay how long Lettuce waits between attempts to reconnect
     * @param trustedCas     for TLS: a PEM file of the certificate authorities to trust instead of the JVM's
     *                       truststore, or null for the JVM's
     * @throws IllegalArgumentException if the URI is malformed (see {@link RedisLocation#parse})
     */
    public static Client create(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas) {
        RedisLocation location = RedisLocation.parse(uri);
        for (RedisURI node : location.nodes()) {
            // The URI's timeout bounds connecting (the handshake's commands included); commands get their own below.
            node.setTimeout(connectTimeout(timeout));
        }
        ClientResources resources = ClientResources.builder().reconnectDelay(Delay.constant(reconnectDelay)).build();
        AbstractRedisClient client;
        if (location.cluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, location.nodes());
            cluster.setOptions(clusterOptions(timeout, trustedCas));
            client = cluster;
        } else {
            RedisClient server = RedisClient.create(resources, location.nodes().get(0));
            server.setOptions(options(ClientOptions.builder(), timeout, trustedCas).build());
            client = server;
        }
        return new Client(client, resources, timeout, location.description());
    }

    /** The options of every client: the timeouts, the refusal of commands while disconnected, TLS. */
    private static <B extends ClientOptions.Builder> B options(B builder, Duration timeout, Path trustedCas) {
        builder.timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout(timeout)).build())
                // While disconnected, fail at once instead of queuing commands until their timeout.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .sslOptions(sslOptions(trustedCas, connectTimeout(timeout)));
        return builder;
    }

    /** A cluster client's options: every client's, and how it follows the topology. */
    private static ClusterClientOptions clusterOptions(Duration timeout, Path trustedCas) {
        return options(ClusterClientOptions.builder(), timeout, trustedCas)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(TOPOLOGY_REFRESH_GAP)
                        .build())
                // A failed master keeps its place in CLUSTER NODES: routing and pings must not aim at it.
                .nodeFilter(node -> !node.is(RedisClusterNode.NodeFlag.FAIL)
                        && !node.is(RedisClusterNode.NodeFlag.NOADDR))
                .build();
    }

    private static SslOptions sslOptions(Path trustedCas, Duration handshakeTimeout) {
        // Netty's own handshake timeout is 10 s: a rediss:// URI aimed at a plain port would hold the start that long.
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().handshakeTimeout(handshakeTimeout);
        if (trustedCas != null) {
            ssl.trustManager(trustedCas.toFile());
        }
        return ssl.build();
    }

    /**
     * The longest a connection may take to establish: TCP, TLS and the handshake (HELLO, AUTH). Longer than a
     * command's timeout, because the first connection of a JVM loads and starts the client (Netty, TLS) first; at a
     * command's timeout a healthy Redis could fail both pings at start (benchmark notes). No stream thread waits for
     * a connection: commands are rejected at once while there is none, and (re)connecting happens at start or on a
     * background thread.
     */
    static Duration connectTimeout(Duration timeout) {
        Duration atLeast = Duration.ofSeconds(2);
        Duration fourCommands = timeout.multipliedBy(4);
        return fourCommands.compareTo(atLeast) > 0 ? fourCommands : atLeast;
    }
}
