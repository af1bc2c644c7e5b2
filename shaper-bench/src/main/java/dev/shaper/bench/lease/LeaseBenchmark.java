package dev.shaper.bench.lease;

import dev.shaper.bench.BenchCommandLine;
import dev.shaper.testsupport.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import dev.shaper.internals.capacity.LeaseCadence;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The lease coordination at scale: for each N, a fresh redis-server and N simulated instances leasing the capacity
 * through the real lease script ({@link LeaseSimulation}); prints a Markdown table and writes it to the results
 * file. Run by {@code shaper-bench/run-lease-benchmark.sh}; see the module's README.
 */
public final class LeaseBenchmark {

    private LeaseBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        LeaseBenchOptions options = BenchCommandLine.options(args, LeaseBenchOptions.usage(), "lease simulation",
                LeaseBenchOptions::parse);
        if (options == null) {
            return;
        }
        StringBuilder results = new StringBuilder();
        results.append("lease simulation ").append(Instant.now()).append(": C=").append(options.capacity())
                .append(", lease ").append(options.leaseMs()).append(" ms, timeout ").append(options.timeoutMs())
                .append(" ms, phases of ").append(options.phaseMs()).append(" ms, pause ").append(options.pauseMs())
                .append(" ms, P = 10 N\n\n").append(LeaseResultTable.HEADER);
        System.out.print(results);
        for (int n : options.instances()) {
            for (PhaseFigures phase : simulate(options, n)) {
                String row = LeaseResultTable.row(phase, options.capacity(), new LeaseCadence(
                        Duration.ofMillis(options.leaseMs()), options.renewalsPerSecond(),
                        LeaseBenchOptions.PARTITIONS_PER_INSTANCE * n));
                System.out.print(row);
                results.append(row);
            }
        }
        write(options, results.toString());
    }

    /** One N on a redis-server of its own, so that no backlog or table of a run reaches the next. */
    static List<PhaseFigures> simulate(LeaseBenchOptions options, int instances) throws InterruptedException {
        try (RedisServer server = RedisServer.builder().args("--enable-debug-command", "yes").start();
             LeaseSimulation simulation = new LeaseSimulation(options, server, instances)) {
            return simulation.run();
        }
    }

    private static void write(LeaseBenchOptions options, String text) throws IOException {
        if (options.resultsFile().getParent() != null) {
            Files.createDirectories(options.resultsFile().getParent());
        }
        Files.writeString(options.resultsFile(), text);
    }
}
