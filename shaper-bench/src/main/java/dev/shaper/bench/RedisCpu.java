package dev.shaper.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU time redis-server reports for itself ({@code INFO cpu}: user plus system), so that the benchmark can
 * charge the admission apps for what Redis spends on them: it runs on the same cores, outside the JVM whose
 * threads the benchmark measures.
 */
final class RedisCpu implements AutoCloseable {

    private static final Pattern FIELD = Pattern.compile("^used_cpu_(sys|user):([0-9.]+)", Pattern.MULTILINE);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RedisCpu(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    /** Seconds of CPU redis-server has used since it started; NaN if it does not say (an ACL, a timeout). */
    double seconds() {
        String info;
        try {
            info = connection.sync().info("cpu");
        } catch (RuntimeException e) {
            System.out.println("  redis-server CPU unknown: " + e.getMessage());
            return Double.NaN;
        }
        Matcher m = FIELD.matcher(info);
        double seconds = 0;
        while (m.find()) {
            seconds += Double.parseDouble(m.group(2));
        }
        return seconds;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
