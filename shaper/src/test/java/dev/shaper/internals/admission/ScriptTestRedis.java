package dev.shaper.internals.admission;

import dev.shaper.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A redis-server of its own (on a free port) for all tests of a script test class, started before the first and
 * stopped after the last, with two ways in: a plain connection, to run a script or read a key as another service
 * would, and the shaper's own client. {@code @RegisterExtension static final ScriptTestRedis redis = new
 * ScriptTestRedis();}
 */
final class ScriptTestRedis implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;
    private RedisClient client;
    private RedisCommands<String, String> commands;
    private RedisLimits buckets;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
        client = RedisClient.create(server.uri());
        StatefulRedisConnection<String, String> connection = client.connect();
        commands = connection.sync();
        buckets = new RedisLimits(server.uri(), Duration.ofSeconds(2), Duration.ofMillis(100));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (buckets != null) {
            buckets.close();
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (server != null) {
            server.close();
        }
    }

    /** The server, to call it directly ({@code SCRIPT FLUSH}) or reach it at its address. */
    RedisServer server() {
        return server;
    }

    /** Commands on the plain connection. */
    RedisCommands<String, String> sync() {
        return commands;
    }

    /** The shaper's client, as admission calls it. */
    RedisLimits buckets() {
        return buckets;
    }
}
