package dev.shaper.bench.lease;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What redis-server says it spent: its CPU ({@code INFO cpu}, user plus system) and its EVALSHA calls and their
 * time ({@code INFO commandstats}), on a connection of its own.
 */
final class RedisLoad implements AutoCloseable {

    /** Totals since redis-server started; subtract two to get a phase's. */
    record Snapshot(double cpuSeconds, long evalshaCalls, long evalshaMicros) {
        Snapshot minus(Snapshot earlier) {
            return new Snapshot(cpuSeconds - earlier.cpuSeconds, evalshaCalls - earlier.evalshaCalls,
                    evalshaMicros - earlier.evalshaMicros);
        }
    }

    private static final Pattern CPU = Pattern.compile("^used_cpu_(?:sys|user):([0-9.]+)", Pattern.MULTILINE);
    private static final Pattern EVALSHA =
            Pattern.compile("^cmdstat_evalsha:calls=(\\d+),usec=(\\d+)", Pattern.MULTILINE);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RedisLoad(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        // behind a saturated server's backlog, INFO waits its turn like any command
        redisUri.setTimeout(Duration.ofSeconds(30));
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
    }

    Snapshot snapshot() {
        return parse(connection.sync().info("cpu") + "\n" + connection.sync().info("commandstats"));
    }

    static Snapshot parse(String info) {
        double cpu = 0;
        Matcher m = CPU.matcher(info);
        while (m.find()) {
            cpu += Double.parseDouble(m.group(1));
        }
        Matcher e = EVALSHA.matcher(info);
        return e.find() ? new Snapshot(cpu, Long.parseLong(e.group(1)), Long.parseLong(e.group(2)))
                : new Snapshot(cpu, 0, 0);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
