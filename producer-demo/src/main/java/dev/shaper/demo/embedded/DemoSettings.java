package dev.shaper.demo.embedded;

import dev.shaper.demo.db.DbSlowdown;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything the demo can be told; {@link dev.shaper.demo.cli.DemoCommand} fills it from the command line
 * and the integration test directly.
 *
 * @param duration      how long the producer runs
 * @param ratePerKey    the shaper's release rate per key, records/s
 * @param totalRate     the database's capacity, the shaper's {@code shaper.shaping.total.rate}: units/s over all keys
 *                      together (a demo record costs one unit); 0 for no cap
 * @param keys          how many distinct keys the producer uses
 * @param zipfExponent  skew of the keys (0 uniform)
 * @param baseRate      the producer's background rate between bursts, records/s
 * @param burstSize     records per burst
 * @param burstEvery    time between bursts
 * @param recordSize    bytes per record value
 * @param maxDelay      the longest a record may wait in the shaper before it is rejected instead
 * @param admissionRate admission tokens/s per key (0: no admission stage)
 * @param redisUri      Redis of the admission counters, or null for local buckets
 * @param jdbcUrl       the database the DB writer fills
 * @param dbSlowdown    a slowdown the DB writer injects into its batches, or null for none
 * @param feedback      whether the DB writer reports its writes to {@link DemoRun#FEEDBACK_TOPIC}
 * @param outputDir     where the chart goes
 * @param drainTimeout  how long to wait after the producer stops for the queues to empty
 * @param adaptive      the closed loop the shaper runs, its maximum the total rate, or null for a fixed capacity
 */
public record DemoSettings(Duration duration, double ratePerKey, double totalRate, int keys, double zipfExponent,
                           double baseRate, int burstSize, Duration burstEvery, int recordSize, Duration maxDelay,
                           double admissionRate, String redisUri, String jdbcUrl, DbSlowdown dbSlowdown,
                           boolean feedback, Path outputDir, Duration drainTimeout, Adaptive adaptive) {

    /**
     * The shaper's closed loop in the demo: the capacity follows the DB writer's reports on
     * {@link DemoRun#FEEDBACK_TOPIC} between {@code minRate} and the total rate.
     *
     * @param minRate       the lowest the capacity falls to, units/s ({@code shaper.capacity.min.rate})
     * @param targetLatency the writer's p99 batch latency above which it falls
     *                      ({@code shaper.capacity.target.latency.ms})
     * @param controller    {@code aimd} or {@code gradient} ({@code shaper.capacity.controller})
     * @param adjust        the time between two decisions ({@code shaper.capacity.adjust.ms}), and between two of
     *                      the writer's reports
     */
    public record Adaptive(double minRate, Duration targetLatency, String controller, Duration adjust) {
    }

    /** Settings whose total rate is a number >= 0, and above 0 with a closed loop, which also needs the feedback. */
    public DemoSettings {
        if (!(totalRate >= 0) || Double.isInfinite(totalRate)) {
            throw new IllegalArgumentException("the total rate must be a finite number >= 0, got " + totalRate);
        }
        if (adaptive != null && (totalRate <= 0 || !feedback)) {
            throw new IllegalArgumentException("a closed loop needs a total rate (its maximum) and the feedback");
        }
        if (adaptive != null && !(adaptive.minRate() > 0 && adaptive.minRate() <= totalRate)) {
            throw new IllegalArgumentException("the closed loop's minimum must be > 0 and at most the total rate "
                    + totalRate + ", got " + adaptive.minRate());
        }
    }

    /** Settings with a fixed capacity. */
    public DemoSettings(Duration duration, double ratePerKey, double totalRate, int keys, double zipfExponent,
                        double baseRate, int burstSize, Duration burstEvery, int recordSize, Duration maxDelay,
                        double admissionRate, String redisUri, String jdbcUrl, DbSlowdown dbSlowdown,
                        boolean feedback, Path outputDir, Duration drainTimeout) {
        this(duration, ratePerKey, totalRate, keys, zipfExponent, baseRate, burstSize, burstEvery, recordSize, maxDelay,
                admissionRate, redisUri, jdbcUrl, dbSlowdown, feedback, outputDir, drainTimeout, null);
    }

    /** Whether the shaper's closed loop moves the capacity. */
    public boolean isAdaptive() {
        return adaptive != null;
    }

    /** What all keys together may release at their own rates, records/s. */
    public double keysRate() {
        return ratePerKey * keys;
    }

    /**
     * The most records the producer sends in one second: its background rate and every burst that falls in that
     * second (a burst is sent at once).
     */
    public double peakInputRate() {
        long burstsPerSecond = Math.max(1, (long) Math.ceil(1000.0 / Math.max(1, burstEvery.toMillis())));
        return baseRate + burstsPerSecond * burstSize;
    }

    /** Whether the shaper caps all keys together at {@link #totalRate()}. */
    public boolean hasTotalRate() {
        return totalRate > 0;
    }
}
