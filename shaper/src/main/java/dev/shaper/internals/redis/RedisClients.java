package dev.shaper.internals.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce clients as the shaper wants them, for the admission's buckets and the capacity's leases alike: every
 * command bounded by the timeout, commands refused at once while disconnected (so that no stream thread waits for a
 * connection), reconnects at a fixed delay, and TLS with an optional file of trusted certificate authorities.
 */
public final class RedisClients {

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
     * @param timeout     the longest any command may take
     * @param description the URI without user or password, for logs
     */
    public record Client(RedisClient client, ClientResources resources, Duration timeout, String description)
            implements AutoCloseable {
        @Override
        public void close() {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private RedisClients() {
    }

    /**
     * @param uri            {@code redis://[user:password@]host:port[/db]} or {@code rediss://...} for TLS
     * @param timeout        the longest any command may take; a slower Redis counts as down
     * @param reconnectDelay how long Lettuce waits between attempts to reconnect
     * @param trustedCas     for {@code rediss://}: a PEM file of the certificate authorities to trust instead of the
     *                       JVM's truststore, or null for the JVM's
     */
    public static Client create(String uri, Duration timeout, Duration reconnectDelay, Path trustedCas) {
        RedisURI redisUri = RedisURI.create(uri);
        // The URI's timeout bounds connecting (the handshake's commands included); commands get their own below.
        redisUri.setTimeout(connectTimeout(timeout));
        ClientResources resources = ClientResources.builder().reconnectDelay(Delay.constant(reconnectDelay)).build();
        RedisClient client = RedisClient.create(resources, redisUri);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout(timeout)).build())
                // While disconnected, fail at once instead of queuing commands until their timeout.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .sslOptions(sslOptions(trustedCas, connectTimeout(timeout)))
                .build());
        return new Client(client, resources, timeout, describe(redisUri));
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

    /** {@code redis://host:port/db}, with any user and password left out. */
    static String describe(RedisURI uri) {
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort()
                + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
    }
}
