package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.ArrivalLog;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster-wide capacity on a real broker and a real redis-server: two instances, eight input partitions and a
 * capacity of 400/s, offered 1,000/s. Whatever the skew, the shaped output is the capacity, never more; with Redis
 * gone, each instance falls back to its partitions' static shares, and it is back on the shared capacity within two
 * leases of Redis's return.
 */
@Order(1) // among the slowest classes: started first in the parallel run
class SharedCapacityIT {

    private static final Logger LOG = LoggerFactory.getLogger(SharedCapacityIT.class);
    private static final int PARTITIONS = 8;
    private static final double CAPACITY = 400;
    private static final double OFFERED = 1_000;
    private static final Duration LEASE = Duration.ofMillis(1_000);
    /** A fine tick: releases come in ticks, so a second may hold one tick's worth more than the capacity. */
    private static final long TICK_MS = 20;
    private static final long MAX_DELAY_MS = 2_000;
    /** No second of the two instances' releases together above the capacity plus one record per instance. */
    private static final int WINDOW_BOUND = (int) CAPACITY + 2;
    /** How far above the capacity the output's slope may run: releases come in ticks, the window bounds each second. */
    private static final double RATE_TOLERANCE = 0.08;
    /**
     * The least share of the capacity the output uses while the machine lets the shaper run, the bound
     * docs/capacity.md states with its figures.
     */
    private static final double LEAST_USE = 0.95;
    private static final AtomicInteger RUNS = new AtomicInteger();

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(180)
    void shouldReleaseTheCapacityWhenEightyPercentOfTheLoadIsOnTwoPartitionsAndBoundEveryWait() throws Exception {
        // Given: three times the capacity offered, 8 of every 10 records on partitions 0 and 1, the others spread over
        // 2-7; waits bounded to 2 s
        IntUnaryOperator skewed = i -> i % 10 < 8 ? i % 2 : 2 + (i / 10 * 2 + i % 10 - 8) % 6;
        try (RedisServer redis = RedisServer.start()) {
            Run run = Run.start(redis, skewed, 3 * CAPACITY, Duration.ofSeconds(20),
                    Map.of(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, MAX_DELAY_MS));
            List<CollectedRecord> collected = run.finish(true);

            // Then: the capacity, whatever the skew
            assertCapacity(run, releaseTimes(collected), run.sendStartMs + 3_000, run.sendEndMs, "skewed");

            // And: every record once, shaped or rejected; none released later than its bound plus a tick; every
            // refusal a DELAY_EXCEEDED with a retry-after
            VerificationReport report = ShapedOutputVerifier.verify(PacedProducer.ids(run.sent), collected);
            assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
            long longestWait = collected.stream().filter(CollectedRecord::isOutput)
                    .mapToLong(r -> r.queuedMs() == null ? 0 : r.queuedMs()).max().orElse(0);
            // (end to end: from the record's timestamp, which the producer set as it sent it, to its release)
            Map<RecordId, Long> timestamps = run.sent.stream()
                    .collect(Collectors.toMap(PacedProducer.Sent::id, PacedProducer.Sent::sentAtMs));
            long longestEndToEnd = collected.stream().filter(CollectedRecord::isOutput)
                    .mapToLong(r -> r.releasedAtMs() - timestamps.get(r.id())).max().orElse(0);
            LOG.info("skewed load with max.delay.ms {}: {} shaped, {} rejected, longest wait {} ms in the queue, {} ms"
                    + " from the timestamp", MAX_DELAY_MS, collected.size() - report.rejectedCount(),
                    report.rejectedCount(), longestWait, longestEndToEnd);
            assertThat(longestWait).isLessThanOrEqualTo(MAX_DELAY_MS + TICK_MS);
            assertThat(longestEndToEnd).isLessThanOrEqualTo(MAX_DELAY_MS + TICK_MS);
            assertThat(report.rejectedCount()).isPositive();
            assertThat(collected.stream().filter(r -> !r.isOutput()).map(CollectedRecord::reason).distinct())
                    .containsExactly(RejectReason.DELAY_EXCEEDED.name());
            assertThat(collected.stream().filter(r -> !r.isOutput()))
                    .allSatisfy(r -> assertThat(r.retryAfterMs()).isNotNull().isPositive());
        }
    }

    @Test
    @Timeout(180)
    void shouldReleaseTheCapacityWhenTheLoadIsSpreadEvenly() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            Run run = Run.start(redis, i -> i % PARTITIONS, OFFERED, Duration.ofSeconds(12), Map.of());
            long[] released = releaseTimes(run.finish(false));
            assertCapacity(run, released, run.sendStartMs + 3_000, run.sendEndMs, "even");
        }
    }

    @Test
    @Timeout(180)
    void shouldFallBackToTheStaticSharesWhileRedisIsDownAndShareAgainWhenItIsBack() throws Exception {
        // 80 % on partition 0: its static share (50/s) is far below what it could get, so the fallback shows
        IntUnaryOperator hotPartition = i -> i % 10 < 8 ? 0 : 1 + (i / 10 * 2 + i % 10 - 8) % 7;
        try (RedisServer redis = RedisServer.start()) {
            Run run = Run.start(redis, hotPartition, OFFERED, Duration.ofSeconds(21), Map.of());

            // When: Redis is killed 5 s in and started again 8 s later
            Await.until("5 s of traffic", Duration.ofSeconds(30), () -> System.currentTimeMillis() - run.sendStartMs
                    >= 5_000);
            redis.kill();
            long killedAt = System.currentTimeMillis();
            Await.until("both instances on their static shares", Duration.ofSeconds(10),
                    () -> onSource(run.first, "local") && onSource(run.second, "local"));
            Await.until("8 s of outage", Duration.ofSeconds(20), () -> System.currentTimeMillis() - killedAt >= 8_000);
            redis.restart();
            long restartedAt = System.currentTimeMillis();
            Await.until("both instances back on a lease", Duration.ofSeconds(10),
                    () -> onSource(run.first, "redis") && onSource(run.second, "redis"));
            long backAfterMs = System.currentTimeMillis() - restartedAt;
            long afterFrom = restartedAt + 2 * LEASE.toMillis();
            Await.until("two leases after Redis's return", Duration.ofSeconds(10),
                    () -> System.currentTimeMillis() >= afterFrom);
            run.markStalls();
            long[] released = releaseTimes(run.finish(false));

            // Then: during the outage (once the last grants have lapsed) the static shares, well below the capacity
            long outageFrom = killedAt + 2 * LEASE.toMillis() + 500;
            double outageRate = ArrivalStats.fittedRatePerSecond(between(released, outageFrom, restartedAt));
            // And: the shared capacity again after Redis's return
            double afterRate = ArrivalStats.fittedRatePerSecond(between(released, afterFrom, run.sendEndMs));
            double afterRunning = run.runningShare();
            int densest = ArrivalStats.maxInWindow(released, 1_000_000_000L);
            LOG.info("Redis down for 8 s: {}/s during the outage, {}/s after it (capacity {}/s, the stream threads running {} of"
                    + " that time), back on a lease {} ms after Redis returned, densest second {}; switches to local"
                    + " {}/{}", outageRate, afterRate, CAPACITY, afterRunning, backAfterMs, densest,
                    switches(run.first, "local"), switches(run.second, "local"));
            assertThat(outageRate).isLessThanOrEqualTo(CAPACITY * 0.85);
            assertThat(afterRate).isBetween(CAPACITY * LEAST_USE * afterRunning,
                    CAPACITY * (1 + RATE_TOLERANCE));
            assertThat(densest).isLessThanOrEqualTo(WINDOW_BOUND);
            assertThat(backAfterMs).isLessThanOrEqualTo(2 * LEASE.toMillis());
            assertThat(switches(run.first, "local")).isEqualTo(1);
            assertThat(switches(run.second, "local")).isEqualTo(1);
        }
    }

    /** Two instances on one Redis, offered {@link #OFFERED} records/s by a producer in the background. */
    private static final class Run {
        final String name;
        final ShaperInstance first;
        final ShaperInstance second;
        final CommittedRecordCollector collector;
        final CompletableFuture<List<PacedProducer.Sent>> sending;
        final long sendStartMs;
        List<PacedProducer.Sent> sent;
        long sendEndMs;
        private long stallsMarkedAtMs;
        private double[] stallsAtMark;
        private long stallsAtEndMs;
        private double[] stallsAtEnd;

        private Run(ShaperInstance first, ShaperInstance second, CommittedRecordCollector collector,
                    CompletableFuture<List<PacedProducer.Sent>> sending, long sendStartMs, String name) {
            this.name = name;
            this.first = first;
            this.second = second;
            this.collector = collector;
            this.sending = sending;
            this.sendStartMs = sendStartMs;
        }

        static Run start(RedisServer redis, IntUnaryOperator partitionOf, double offered, Duration duration,
                         Map<String, Object> extraSettings) throws Exception {
            String name = "capacity-" + RUNS.incrementAndGet();
            broker.createTopics(PARTITIONS, name + "-in");
            broker.createTopics(1, name + "-out", name + "-rejected");
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
            ShaperInstance.useTopics(settings, name);
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 100_000.0);
            settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, CAPACITY);
            settings.put(ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_CLUSTER);
            settings.put(ShaperConfig.CAPACITY_LEASE_MS_CONFIG, LEASE.toMillis());
            settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redis.uri());
            settings.put(ShaperConfig.REDIS_PING_INTERVAL_MS_CONFIG, 250L);
            // Killing Redis refuses connections at once; a longer timeout keeps a busy machine's hiccups from
            // counting as an outage.
            settings.put(ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, 250L);
            settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);
            settings.putAll(extraSettings);
            ShaperInstance first = ShaperInstance.start(settings);
            ShaperInstance second = ShaperInstance.start(settings);
            CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                    name + "-out", name + "-rejected");
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);
            Await.until("both instances on a lease", Duration.ofSeconds(10),
                    () -> onSource(first, "redis") && onSource(second, "redis"));
            long startMs = System.currentTimeMillis();
            sampleShares(first, second, duration);
            CompletableFuture<List<PacedProducer.Sent>> sending = CompletableFuture.supplyAsync(() ->
                    PacedProducer.send(broker.bootstrapServers(), name + "-in", partitionOf, offered, duration,
                            Map.of()));
            Run run = new Run(first, second, collector, sending, startMs, name);
            // The capacity is measured from 3 s after the start of sending
            CompletableFuture.runAsync(run::markStalls, CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS));
            return run;
        }

        /** Marks the start of the stretch whose stalls {@link #runningShare} counts. */
        synchronized void markStalls() {
            stallsMarkedAtMs = System.currentTimeMillis();
            stallsAtMark = stalledPerTask();
        }

        /** The seconds each instance's release ticks came later than routinely (shaper.release.stalled), per task. */
        private double[] stalledPerTask() {
            return new double[] {stalledPerTask(first), stalledPerTask(second)};
        }

        private static double stalledPerTask(ShaperInstance instance) {
            return instance.functionCount(ShaperMetrics.RELEASE_STALLED, null, null) / instance.activeTasks();
        }

        /**
         * The share of the time from {@link #markStalls} to the end of sending the two instances' stream threads
         * ran, as the shaper measured it (the mean over the instances, each of its tasks' stalls): each lost what
         * its stalls cost, which a capacity in full use cannot make up.
         */
        synchronized double runningShare() {
            double stalled = 0;
            for (int i = 0; i < 2; i++) {
                stalled += (stallsAtEnd[i] - stallsAtMark[i]) / 2;
            }
            return 1 - stalled / ((stallsAtEndMs - stallsMarkedAtMs) / 1000.0);
        }

        /**
         * Waits for the producer, then for the output committed until then, or, with {@code everyRecord}, until
         * every record sent is accounted for; returns what was collected.
         */
        List<CollectedRecord> finish(boolean everyRecord) throws Exception {
            try {
                sent = sending.get();
                sendEndMs = sent.get(sent.size() - 1).sentAtMs();
                synchronized (this) {
                    stallsAtEndMs = System.currentTimeMillis();
                    stallsAtEnd = stalledPerTask();
                }
                if (everyRecord) {
                    collector.awaitAccountedFor(PacedProducer.ids(sent), Duration.ofSeconds(60));
                } else {
                    // What was released until the end of sending is committed within a few commit intervals.
                    collector.await("output released up to the end of sending", Duration.ofSeconds(10),
                            records -> records.stream().anyMatch(r -> r.isOutput()
                                    && r.releasedAtMs() > sendEndMs + 500));
                }
                double renewals = first.functionCount(ShaperMetrics.CAPACITY_RENEWALS, "outcome", "ok")
                        + second.functionCount(ShaperMetrics.CAPACITY_RENEWALS, "outcome", "ok");
                LOG.info("{} lease renewals by two instances; partitions (keys p<partition>): first {}, second {};"
                        + " most released in one second: first {}, second {}", renewals, partitions(first),
                        partitions(second), first.gauge(ShaperMetrics.CAPACITY_RELEASED_MOST_SECOND, null, null),
                        second.gauge(ShaperMetrics.CAPACITY_RELEASED_MOST_SECOND, null, null));
                List<CollectedRecord> collected = collector.snapshot();
                ArrivalLog.write(Path.of("target", "shared-capacity-it", name + ".csv"), collected);
                return collected;
            } finally {
                collector.close();
                first.close();
                second.close();
            }
        }
    }

    /** The input partitions {@code instance} runs now, for diagnosis. */
    private static List<Integer> partitions(ShaperInstance instance) {
        return instance.streams().metadataForLocalThreads().stream().flatMap(t -> t.activeTasks().stream())
                .flatMap(t -> t.topicPartitions().stream()).map(tp -> tp.partition()).sorted().toList();
    }

    /**
     * The output between {@code fromMs} and {@code toMs}, with every queue still backlogged: at most
     * {@link #RATE_TOLERANCE} above the capacity (slope of the release times), at least {@link #LEAST_USE} of it
     * less only what the stream threads' stalls cost,
     * as the shaper measured them ({@link Run#runningShare}); no second of the whole run above {@link #WINDOW_BOUND}.
     */
    private static void assertCapacity(Run run, long[] released, long fromMs, long toMs, String load) {
        // fromMs is where the run marked the stalls: 3 s after the start of sending
        long[] steady = between(released, fromMs, toMs);
        double rate = ArrivalStats.fittedRatePerSecond(steady);
        double running = run.runningShare();
        int densest = ArrivalStats.maxInWindow(released, 1_000_000_000L);
        LOG.info("{} load: {}/s released between 3 s in and the end of sending (the stream threads running {} of that time), at"
                + " most {} in one second of the run, against a capacity of {}/s", load, rate, running, densest,
                CAPACITY);
        assertThat(rate).isBetween(CAPACITY * LEAST_USE * running, CAPACITY * (1 + RATE_TOLERANCE));
        assertThat(densest).isLessThanOrEqualTo(WINDOW_BOUND);
    }

    /** Logs each instance's grant, what its partitions are given and their demand, every second (for diagnosis). */
    private static void sampleShares(ShaperInstance first, ShaperInstance second, Duration duration) {
        Thread sampler = new Thread(() -> {
            long end = System.currentTimeMillis() + duration.toMillis();
            while (System.currentTimeMillis() < end) {
                LOG.info("shares: first {}/{}/{}, second {}/{}/{} (held/given/demand, units/s)",
                        share(first, ShaperMetrics.CAPACITY_POOLED), share(first, ShaperMetrics.CAPACITY_GIVEN),
                        share(first, ShaperMetrics.CAPACITY_DEMAND), share(second, ShaperMetrics.CAPACITY_POOLED),
                        share(second, ShaperMetrics.CAPACITY_GIVEN), share(second, ShaperMetrics.CAPACITY_DEMAND));
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000_000L);
            }
        }, "share-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private static long share(ShaperInstance instance, String gauge) {
        return Math.round(instance.gauge(gauge, null, null));
    }

    /** The release times (ns) of the shaped records among {@code collected}, in order. */
    private static long[] releaseTimes(List<CollectedRecord> collected) {
        return collected.stream().filter(CollectedRecord::isOutput).mapToLong(r -> r.releasedAtMs() * 1_000_000L)
                .sorted().toArray();
    }

    private static long[] between(long[] releasedNanos, long fromMs, long toMs) {
        return Arrays.stream(releasedNanos).filter(t -> t >= fromMs * 1_000_000L && t < toMs * 1_000_000L).toArray();
    }

    private static boolean onSource(ShaperInstance instance, String source) {
        return instance.gauge(ShaperMetrics.CAPACITY_SOURCE, "source", source) == 1;
    }

    private static double switches(ShaperInstance instance, String to) {
        return instance.functionCount(ShaperMetrics.CAPACITY_SWITCHES, "to", to);
    }
}
