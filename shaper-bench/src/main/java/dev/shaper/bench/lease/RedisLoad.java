package dev.shaper.bench.lease;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulation's own connection to redis-server, apart from the instances': what the server says it spent (its
 * CPU from {@code INFO cpu}, user plus system, and its EVALSHA calls and their time from {@code INFO
 * commandstats}), and the pause of the Redis pause pattern.
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

    /** One {@code INFO all}, so that the CPU and the calls are read at the same moment. */
    Snapshot snapshot() {
        return parse(connection.sync().info("all"));
    }

    /**
     * Puts redis-server to sleep ({@code DEBUG SLEEP}, which needs {@code enable-debug-command}) and returns when it
     * wakes: behind a saturated server's backlog the sleep starts only when its turn comes.
     */
    void pause(Duration duration) {
        StringCodec codec = StringCodec.UTF8;
        connection.sync().dispatch(CommandType.DEBUG, new StatusOutput<>(codec),
                new CommandArgs<>(codec).add("SLEEP").add(duration.toMillis() / 1000.0));
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
