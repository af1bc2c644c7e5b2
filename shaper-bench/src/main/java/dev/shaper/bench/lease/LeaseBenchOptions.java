package dev.shaper.bench.lease;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The settings of one lease simulation run, from arguments {@code --name=value}.
 *
 * @param instances   the numbers of instances N to simulate, one after the other, each with 10 partitions
 * @param capacity    the capacity C the instances share, units per second
 * @param leaseMs     {@code shaper.capacity.lease.ms}: instances renew every quarter of it, or of a longer lease
 *                    beyond the renewal budget
 * @param renewalsPerSecond {@code shaper.capacity.renewals.per.second}: the instances' renewal budget together
 * @param timeoutMs   {@code shaper.redis.timeout.ms}: a slower renewal counts as failed
 * @param phaseMs     how long each demand pattern runs (the hot spot and churn run 1.5 times that)
 * @param pauseMs     how long redis-server sleeps in the pause pattern ({@code DEBUG SLEEP})
 * @param resultsFile where the results table is written, besides standard output
 */
public record LeaseBenchOptions(List<Integer> instances, double capacity, long leaseMs, int renewalsPerSecond,
                                long timeoutMs, long phaseMs, long pauseMs, Path resultsFile) {

    /** Partitions per instance: P = 10 N. */
    public static final int PARTITIONS_PER_INSTANCE = 10;

    private static final Set<String> NAMES = Set.of("instances", "capacity", "lease.ms", "renewals.per.second",
            "timeout.ms", "phase.ms", "pause.ms", "results.file");

    public LeaseBenchOptions {
        instances = List.copyOf(instances);
        require(!instances.isEmpty() && instances.stream().allMatch(n -> n > 0), "instances must be numbers > 0");
        require(capacity > 0, "capacity must be > 0");
        require(leaseMs >= 100, "lease.ms must be >= 100");
        require(renewalsPerSecond > 0, "renewals.per.second must be > 0");
        require(timeoutMs > 0, "timeout.ms must be > 0");
        require(phaseMs >= 1_000, "phase.ms must be >= 1000");
        require(pauseMs > 0 && pauseMs <= 10_000, "pause.ms must be in (0, 10000]");
    }

    /** Reads {@code --name=value} arguments over the defaults. */
    public static LeaseBenchOptions parse(String[] args) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0 || !NAMES.contains(arg.substring(2, eq))) {
                throw new IllegalArgumentException("unknown argument \"" + arg + "\"\n" + usage());
            }
            given.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        return new LeaseBenchOptions(
                Arrays.stream(given.getOrDefault("instances", "10,100,300,1000").split(","))
                        .map(String::trim).filter(s -> !s.isEmpty()).map(Integer::valueOf).toList(),
                Double.parseDouble(given.getOrDefault("capacity", "10000")),
                Long.parseLong(given.getOrDefault("lease.ms", "1000")),
                Integer.parseInt(given.getOrDefault("renewals.per.second", "300")),
                Long.parseLong(given.getOrDefault("timeout.ms", "50")),
                Long.parseLong(given.getOrDefault("phase.ms", "4000")),
                Long.parseLong(given.getOrDefault("pause.ms", "3000")),
                Path.of(given.getOrDefault("results.file", "target/lease-bench-results.md")));
    }

    public static String usage() {
        return """
                options (--name=value):
                  --instances=10,100,300,1000  numbers of instances N, each run on a fresh redis-server; P = 10 N
                  --capacity=10000             the capacity C, units per second
                  --lease.ms=1000              shaper.capacity.lease.ms (renewals every quarter of it)
                  --renewals.per.second=300    shaper.capacity.renewals.per.second (beyond it the lease grows)
                  --timeout.ms=50              shaper.redis.timeout.ms
                  --phase.ms=4000              length of each demand pattern (hot spot and churn: 1.5 times)
                  --pause.ms=3000              DEBUG SLEEP of the pause pattern (at most 10000)
                  --results.file=target/lease-bench-results.md
                """;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
