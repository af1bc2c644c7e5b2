package dev.shaper.bench.lease;

import dev.shaper.internals.capacity.LeaseCadence;
import java.util.List;
import java.util.Locale;

/** The lease simulation's figures as a Markdown table, one row per N and pattern. */
final class LeaseResultTable {

    static final String HEADER = "| N | pattern | s | renewals sent/s (needed) | EVALSHA run/s | us per EVALSHA"
            + " | Redis CPU, % of a core | answered in time | answer p50/p99 ms | between answers p50/p99/max ms"
            + " | INFO wait at end ms | max sum / C | changes: reached, median and max ms; never | Jain, last s"
            + " | on static shares |\n"
            + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";

    private LeaseResultTable() {
    }

    /** One row; {@code needed} renewals per second are N times four per lease, at the lease N instances get. */
    static String row(PhaseFigures f, double capacity, LeaseCadence cadence) {
        RenewalLog.Counts r = f.renewals();
        RedisLoad.Snapshot redis = f.redis();
        double needed = f.instances() * (double) LeaseCadence.RENEWALS_PER_LEASE * 1_000
                / cadence.lease(f.instances()).toMillis();
        List<Long> reached = f.fairness().reachedMs().stream().sorted().toList();
        String toFair = reached.size() + (reached.isEmpty() ? "" : ", " + reached.get((reached.size() - 1) / 2)
                + ", " + reached.get(reached.size() - 1)) + "; " + f.fairness().unreached();
        return "| " + String.join(" | ",
                Integer.toString(f.instances()),
                f.pattern(),
                fixed(f.seconds(), 1),
                fixed(r.sent() / f.seconds(), 0) + " (" + fixed(needed, 0) + ")",
                fixed(redis.evalshaCalls() / f.seconds(), 0),
                redis.evalshaCalls() == 0 ? "-" : fixed((double) redis.evalshaMicros() / redis.evalshaCalls(), 0),
                fixed(100 * redis.cpuSeconds() / f.seconds(), 0),
                r.sent() == 0 ? "-" : fixed(100.0 * r.answeredInTime() / r.sent(), 1) + " %",
                fixed(r.latencyP50(), 0) + "/" + fixed(r.latencyP99(), 0),
                fixed(r.gapP50(), 0) + "/" + fixed(r.gapP99(), 0) + "/" + fixed(r.gapMax(), 0),
                Long.toString(f.infoWaitMs()),
                fixed(f.highestSum() / capacity, 4),
                toFair,
                fixed(f.fairness().jainAtEnd(), 3),
                Integer.toString(f.onStaticShares())) + " |\n";
    }

    private static String fixed(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
