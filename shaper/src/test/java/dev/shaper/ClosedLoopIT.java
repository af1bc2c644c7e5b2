package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CapacitySamples;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ScriptedFeedbackWriter;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The closed loop on a real broker (and a real redis-server where instances share the decision): the test publishes the
 * database writers' reports itself, as a writer would, and watches the capacity the instances apply (their meters and
 * {@code GET /capacity}) and the shaped output's rate (the slope of the {@code shaper.released.ms} stamps).
 */
@Execution(ExecutionMode.CONCURRENT) // each test has topics and instances of its own: they run side by side
@Order(1) // among the slowest classes: started first in the parallel run
class ClosedLoopIT {

    private static final Logger LOG = LoggerFactory.getLogger(ClosedLoopIT.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double MAX = 400;
    private static final double MIN = 80;
    private static final double TARGET_MS = 50;
    private static final long ADJUST_MS = 500;
    private static final long TIMEOUT_MS = 2_000;
    /** AIMD's rise per decision: a twentieth of the maximum per second. */
    private static final double ALPHA = MAX / 20 * ADJUST_MS / 1000.0;
    private static final long TICK_MS = 20;
    private static final Duration REPORT_PERIOD = Duration.ofMillis(250);
    private static final AtomicInteger RUNS = new AtomicInteger();

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    /** The topics and settings of one run; {@code partitions} input partitions. */
    private static Map<String, Object> settings(String name, int partitions) {
        broker.createTopics(partitions, name + "-in");
        broker.createTopics(1, name + "-out", name + "-rejected", name + "-feedback");
        Map<String, Object> s = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(s, name);
        s.put(ShaperConfig.SHAPING_RATE_CONFIG, 100_000.0);
        s.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, 1_000_000);
        s.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, 600_000L); // the backlog grows while the capacity is low
        s.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, MAX);
        s.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);
        s.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        s.put(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, true);
        s.put(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, name + "-feedback");
        s.put(ShaperConfig.CAPACITY_MIN_RATE_CONFIG, MIN);
        s.put(ShaperConfig.CAPACITY_TARGET_LATENCY_MS_CONFIG, TARGET_MS);
        s.put(ShaperConfig.CAPACITY_ADJUST_MS_CONFIG, ADJUST_MS);
        s.put(ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
        return s;
    }

    @Test
    @Timeout(300)
    void shouldFollowTheWritersLatencyWithinItsBoundsAndHoldWhenTheyFallSilent() throws Exception {
        // Given: one instance, offered 600/s on two partitions against a capacity of at most 400/s; writers healthy
        String name = "loop-" + RUNS.incrementAndGet();
        Map<String, Object> settings = settings(name, 2);
        try (ShaperInstance shaper = ShaperInstance.start(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     name + "-out", name + "-rejected");
             ScriptedFeedbackWriter writer = ScriptedFeedbackWriter.start(broker.bootstrapServers(), name + "-feedback",
                     "writer-1", REPORT_PERIOD);
             CapacitySamples samples = CapacitySamples.start(50, shaper)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
            CompletableFuture<List<PacedProducer.Sent>> sending = CompletableFuture.supplyAsync(() ->
                    PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 600, Duration.ofSeconds(30),
                            Map.of()));
            awaitFor(5_000);
            assertThat(CapacitySamples.capacity(shaper)).isEqualTo(MAX);

            // When: the database slows down: the writers' p99 is 200 ms (the target is 50) for 6 s
            long slowAt = System.currentTimeMillis();
            writer.report(200, 0);
            Await.until("a cut of 30 %", Duration.ofSeconds(10), () -> CapacitySamples.capacity(shaper) <= 0.7 * MAX);
            long fellAfterMs = System.currentTimeMillis() - slowAt;
            Await.until("the minimum", Duration.ofSeconds(10), () -> CapacitySamples.capacity(shaper) == MIN);
            long atMinAt = System.currentTimeMillis();
            JsonNode cut = capacityJson(shaper);
            awaitUntil(slowAt + 6_000);

            // And then: healthy again
            long healthyAt = System.currentTimeMillis();
            writer.report(20, 0);
            Await.until("the maximum again", Duration.ofSeconds(30), () -> CapacitySamples.capacity(shaper) == MAX);
            long recoveredAfterMs = System.currentTimeMillis() - healthyAt;

            // Then: 30 % down within three decisions, for the latency, at the minimum and never below it
            LOG.info("p99 200 ms: capacity 30 % down after {} ms, at the minimum after {} ms; back to the maximum {} ms"
                    + " after healthy reports", fellAfterMs, atMinAt - slowAt, recoveredAfterMs);
            assertThat(fellAfterMs).isLessThanOrEqualTo(3 * ADJUST_MS);
            assertThat(cut.get("capacity").asDouble()).isEqualTo(MIN);
            assertThat(cut.get("reason").asText()).isEqualTo("latency");
            assertThat(cut.get("latencyP99Ms").asDouble()).isEqualTo(200);
            assertThat(cut.get("source").asText()).isEqualTo("local");
            assertThat(cut.get("feedbackPresent").asBoolean()).isTrue();
            // And: back to the maximum within 30 s, never falling on the way
            assertThat(recoveredAfterMs).isLessThanOrEqualTo(30_000);
            List<CapacitySamples.Sample> rise = samples.between(healthyAt + ADJUST_MS, healthyAt + recoveredAfterMs);
            for (int i = 1; i < rise.size(); i++) {
                assertThat(rise.get(i).capacity()).isGreaterThanOrEqualTo(rise.get(i - 1).capacity());
            }

            // When: a malformed feedback record (no key) and another (not JSON) arrive
            double malformedBefore = malformed(shaper);
            writer.sendMalformed();
            Await.until("two malformed records counted", Duration.ofSeconds(10),
                    () -> malformed(shaper) >= malformedBefore + 2);
            long malformedAt = System.currentTimeMillis();
            awaitFor(4 * ADJUST_MS);

            // Then: nothing changed; the application still runs
            assertThat(samples.between(malformedAt, System.currentTimeMillis()))
                    .allSatisfy(s -> assertThat(s.capacity()).isEqualTo(MAX))
                    .allSatisfy(s -> assertThat(s.reason()).isEqualTo(Reason.HEALTHY));
            assertThat(shaper.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);

            // When: 5 % of the writes fail (the bound is 1 %), the latency fine; then the writers fall silent
            long errorsAt = System.currentTimeMillis();
            writer.report(20, 0.05);
            Await.until("a cut for the errors", Duration.ofSeconds(10),
                    () -> CapacitySamples.reason(shaper) == Reason.ERRORS);
            long erroredAfterMs = System.currentTimeMillis() - errorsAt;
            writer.fallSilent();
            long silentAt = System.currentTimeMillis();
            Await.until("feedback missing", Duration.ofSeconds(10),
                    () -> CapacitySamples.reason(shaper) == Reason.NO_FEEDBACK);
            double held = CapacitySamples.capacity(shaper);
            long missingAt = System.currentTimeMillis();
            awaitFor(1_000);
            JsonNode silence = capacityJson(shaper);

            // Then: the errors cut; silence holds the capacity where the last reports left it, flagged
            LOG.info("errors 5 %: cut after {} ms; silent from {} ms: held at {}/s, flagged after {} ms",
                    erroredAfterMs, silentAt - errorsAt, held, missingAt - silentAt);
            assertThat(erroredAfterMs).isLessThanOrEqualTo(3 * ADJUST_MS);
            assertThat(held).isLessThan(MAX);
            assertThat(samples.between(silentAt + 2 * ADJUST_MS, System.currentTimeMillis()))
                    .allSatisfy(s -> assertThat(s.capacity()).isEqualTo(held));
            assertThat(silence.get("reason").asText()).isEqualTo("no_feedback");
            assertThat(silence.get("feedbackPresent").asBoolean()).isFalse();
            assertThat(silence.get("feedbackAgeMs").asLong()).isGreaterThanOrEqualTo(TIMEOUT_MS);
            assertThat(shaper.gauge(ShaperMetrics.CAPACITY_FEEDBACK_PRESENT, null, null)).isZero();

            // And: never outside [min, max]
            assertThat(samples.all()).allSatisfy(s -> assertThat(s.capacity()).isBetween(MIN, MAX));

            // And: the shaped output followed the capacity: 400/s while healthy, 80/s at the minimum, and up with it
            long firstSentMs = sending.get().get(0).sentAtMs();
            collector.await("releases up to the end of the recovery", Duration.ofSeconds(30), records ->
                    records.stream().anyMatch(r -> r.isOutput() && r.releasedAtMs() > healthyAt + recoveredAfterMs));
            long[] released = releaseTimes(collector.snapshot());
            logPerSecond(released, firstSentMs, healthyAt + recoveredAfterMs);
            double healthyRate = ArrivalStats.fittedRatePerSecond(between(released, firstSentMs + 2_000, slowAt));
            double minRate = ArrivalStats.fittedRatePerSecond(between(released, atMinAt + 500, healthyAt));
            LOG.info("output: {}/s while healthy (capacity {}/s), {}/s at the minimum (capacity {}/s)", healthyRate,
                    MAX, minRate, MIN);
            // Never above the capacity; below it by what a loaded machine's two cores cost the release, which the
            // ratio of the two rates does not depend on
            assertThat(healthyRate).isBetween(MAX * 0.6, MAX * 1.05);
            assertThat(minRate).isBetween(MIN * 0.6, MIN * 1.05);
            assertThat(minRate / healthyRate).isLessThan(0.35);
            assertRisesWithTheCapacity(released, samples, healthyAt, healthyAt + recoveredAfterMs, minRate);
        }
    }

    @Test
    @Timeout(120)
    void shouldNotBeFooledByAReportFromAWriterWhoseClockIsAnHourAhead() throws Exception {
        // Given: one instance, its writer healthy
        String name = "loop-" + RUNS.incrementAndGet();
        Map<String, Object> settings = settings(name, 1);
        try (ShaperInstance shaper = ShaperInstance.start(settings);
             ScriptedFeedbackWriter writer = ScriptedFeedbackWriter.start(broker.bootstrapServers(), name + "-feedback",
                     "writer-1", REPORT_PERIOD)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
            Await.until("the writer's reports taken", Duration.ofSeconds(10),
                    () -> CapacitySamples.reason(shaper) == Reason.HEALTHY);
            double malformedBefore = malformed(shaper);

            // When: one report comes dated an hour ahead, then the writes slow down (p99 500 ms against 50 ms)
            writer.sendDatedAhead(3_600_000);
            Await.until("the report from the future counted as malformed", Duration.ofSeconds(10),
                    () -> malformed(shaper) >= malformedBefore + 1);
            long slowAt = System.currentTimeMillis();
            writer.report(500, 0);

            // Then: the later reports still count: the capacity is cut as for any slowdown
            Await.until("a cut for the latency", Duration.ofSeconds(10),
                    () -> CapacitySamples.capacity(shaper) <= 0.7 * MAX);
            long cutAfterMs = System.currentTimeMillis() - slowAt;
            assertThat(cutAfterMs).isLessThanOrEqualTo(3 * ADJUST_MS);
            assertThat(capacityJson(shaper).get("feedbackAgeMs").asLong()).isBetween(0L, TIMEOUT_MS);

            // And when: the writer falls silent, the feedback is flagged missing after the timeout
            writer.fallSilent();
            long silentAt = System.currentTimeMillis();
            Await.until("feedback missing", Duration.ofSeconds(10),
                    () -> CapacitySamples.reason(shaper) == Reason.NO_FEEDBACK);
            LOG.info("a report an hour ahead: refused; cut {} ms after the slowdown; flagged missing {} ms after the"
                    + " writer fell silent", cutAfterMs, System.currentTimeMillis() - silentAt);
            assertThat(capacityJson(shaper).get("feedbackPresent").asBoolean()).isFalse();
            assertThat(malformed(shaper)).isEqualTo(malformedBefore + 1);
        }
    }

    @Test
    @Timeout(300)
    void shouldApplyOneCapacityOnEveryInstanceWhenTheyShareADecisionInRedis() throws Exception {
        // Given: two instances on one Redis, four partitions, offered 300/s; writers healthy
        String name = "loop-" + RUNS.incrementAndGet();
        try (RedisServer redis = RedisServer.start()) {
            Map<String, Object> settings = settings(name, 4);
            settings.put(ShaperConfig.REDIS_URI_CONFIG, redis.uri());
            settings.put(ShaperConfig.REDIS_PING_INTERVAL_MS_CONFIG, 250L);
            settings.put(ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, 250L);
            try (ShaperInstance first = ShaperInstance.start(settings);
                 ShaperInstance second = ShaperInstance.start(settings);
                 CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                         name + "-out", name + "-rejected");
                 ScriptedFeedbackWriter writer = ScriptedFeedbackWriter.start(broker.bootstrapServers(),
                         name + "-feedback", "writer-1", REPORT_PERIOD)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), first, second);
                CapacitySamples samples = CapacitySamples.start(20, first, second);
                CompletableFuture<List<PacedProducer.Sent>> sending = CompletableFuture.supplyAsync(() ->
                        PacedProducer.send(broker.bootstrapServers(), name + "-in", 4, 300, Duration.ofSeconds(21),
                                Map.of()));
                long startMs = System.currentTimeMillis();

                // When: the writers are healthy 2 s, slow 4 s (down to the minimum), silent 4 s (held there),
                // healthy 4 s (rising), slow 1 s, healthy 3 s
                awaitFor(2_000);
                writer.report(200, 0);
                awaitFor(4_000);
                writer.fallSilent();
                long heldFrom = System.currentTimeMillis();
                awaitFor(4_000);
                long heldTo = System.currentTimeMillis();
                writer.report(20, 0);
                awaitFor(4_000);
                writer.report(200, 0);
                awaitFor(1_000);
                writer.report(20, 0);
                awaitFor(3_000);
                samples.close();

                // Then: at every sample the two apply the same capacity, or one decision step apart (one adopted the
                // newest decision, the other adopts it at its next decision, within the interval): a cut of 30 % or a
                // rise of alpha
                List<CapacitySamples.Sample> all = samples.between(startMs, System.currentTimeMillis());
                int same = 0;
                double widest = 0;
                for (CapacitySamples.Sample s : all) {
                    double a = s.capacities()[0];
                    double b = s.capacities()[1];
                    double step = Math.max(0.3 * Math.max(a, b), ALPHA) + 1e-6;
                    widest = Math.max(widest, Math.abs(a - b) / step);
                    same += a == b ? 1 : 0;
                    assertThat(Math.abs(a - b)).as("at %d: %s vs %s (%s)", s.atMs(), a, b, Arrays.toString(s.reasons()))
                            .isLessThanOrEqualTo(step);
                }
                LOG.info("two instances, one decision: {} samples, {} % equal, widest gap {} of a step; capacities"
                        + " from {} to {}", all.size(), 100 * same / all.size(), widest,
                        all.stream().mapToDouble(CapacitySamples.Sample::capacity).min().orElse(0),
                        all.stream().mapToDouble(CapacitySamples.Sample::capacity).max().orElse(0));
                assertThat(all.stream().mapToDouble(CapacitySamples.Sample::capacity).min().orElse(0)).isEqualTo(MIN);
                assertThat(first.gauge(ShaperMetrics.CAPACITY_DECISION_SOURCE, "source", "redis")).isEqualTo(1);
                assertThat(second.gauge(ShaperMetrics.CAPACITY_DECISION_SOURCE, "source", "redis")).isEqualTo(1);

                // And: while the capacity held at the minimum, the two released 80/s together (the leases shared it)
                sending.get();
                collector.await("releases up to the end of the hold", Duration.ofSeconds(30), records ->
                        records.stream().anyMatch(r -> r.isOutput() && r.releasedAtMs() > heldTo + 500));
                double heldRate = ArrivalStats.fittedRatePerSecond(between(releaseTimes(collector.snapshot()),
                        heldFrom + 500, heldTo));
                LOG.info("held at the minimum: {}/s released by both instances together", heldRate);
                assertThat(samples.between(heldFrom, heldTo)).allSatisfy(s ->
                        assertThat(s.capacities()).containsOnly(MIN));
                assertThat(heldRate).isBetween(MIN * 0.6, MIN * 1.05);
            }
        }
    }

    @Test
    @Timeout(300)
    void shouldDrainARestoredBacklogFromTheMinimumUpWhenAnInstanceRestarts() throws Exception {
        // Given: an instance that queued a backlog: 6,000 records at 2,000/s against 400/s
        String name = "loop-" + RUNS.incrementAndGet();
        Map<String, Object> settings = settings(name, 2);
        long warmUpMs = 20_000;
        settings.put(ShaperConfig.CAPACITY_WARMUP_MS_CONFIG, warmUpMs);
        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                name + "-out", name + "-rejected");
             ScriptedFeedbackWriter writer = ScriptedFeedbackWriter.start(broker.bootstrapServers(), name + "-feedback",
                     "writer-1", REPORT_PERIOD)) {
            try (ShaperInstance before = ShaperInstance.start(settings)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), before);
                PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 2_000, Duration.ofSeconds(3), Map.of());
                assertThat(CapacitySamples.capacity(before)).isEqualTo(MAX);
            } // a clean close: the queues are in the changelogs
            int releasedBefore = collector.outputCount();

            // When: an instance starts again (with an empty state directory: it restores from the changelogs), the
            // writers healthy
            writer.report(20, 0);
            long restartAt = System.currentTimeMillis();
            try (ShaperInstance after = ShaperInstance.start(settings);
                 CapacitySamples samples = CapacitySamples.start(50, after)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), after);
                long runningAt = System.currentTimeMillis();
                JsonNode atStart = capacityJson(after);
                awaitUntil(runningAt + warmUpMs + 2_000);

                // Then: the capacity started at the minimum and rose along the warm-up to the maximum
                List<CapacitySamples.Sample> ramp = samples.between(runningAt, runningAt + warmUpMs + 2_000);
                LOG.info("restart with {} records queued: running {} ms after the start, capacity {} then, {} at the"
                        + " end of the warm-up", 6_000 - releasedBefore, runningAt - restartAt, atStart,
                        ramp.get(ramp.size() - 1).capacity());
                assertThat(atStart.get("reason").asText()).isEqualTo("warming_up");
                assertThat(atStart.get("capacity").asDouble()).isLessThan(MIN + (MAX - MIN) * 0.1);
                assertThat(ramp.get(0).capacity()).isLessThan(MIN + (MAX - MIN) * 0.1);
                for (int i = 1; i < ramp.size(); i++) {
                    assertThat(ramp.get(i).capacity()).isGreaterThanOrEqualTo(ramp.get(i - 1).capacity());
                }
                assertThat(ramp.get(ramp.size() - 1).capacity()).isEqualTo(MAX);

                // And: the drain's rate rose with it: its first seconds near the minimum, later ones faster
                collector.await("releases of the warm-up", Duration.ofSeconds(30), records -> records.stream()
                        .anyMatch(r -> r.isOutput() && r.releasedAtMs() > runningAt + 12_000));
                long[] released = releaseTimes(collector.snapshot());
                long firstRelease = Arrays.stream(released).filter(t -> t >= restartAt * 1_000_000L).findFirst()
                        .orElseThrow() / 1_000_000L;
                double early = ArrivalStats.fittedRatePerSecond(between(released, firstRelease, firstRelease + 2_000));
                double later = ArrivalStats.fittedRatePerSecond(between(released, firstRelease + 8_000,
                        firstRelease + 10_000));
                double ceilingEarly = MIN + (MAX - MIN) * (firstRelease + 2_000 - runningAt) / warmUpMs;
                LOG.info("drain after the restart: {}/s in its first 2 s (ceiling at most {}/s), {}/s from 8 to 10 s",
                        early, ceilingEarly, later);
                assertThat(early).isLessThanOrEqualTo(ceilingEarly * 1.1);
                assertThat(later).isGreaterThan(early * 1.5);
            }
        }
    }

    /** The releases per second, for diagnosis. */
    private static void logPerSecond(long[] released, long fromMs, long toMs) {
        StringBuilder counts = new StringBuilder();
        for (long start = fromMs; start < toMs; start += 1_000) {
            counts.append(between(released, start, start + 1_000).length).append(' ');
        }
        LOG.info("released per second from the first record sent: {}", counts);
    }

    /**
     * During a recovery, no second of releases holds more than the highest capacity applied in it plus one record (the
     * ceiling; the capacity is sampled every 50 ms, so the samples just before and after the second count too), and
     * the last 2-s window's release rate is at least three times the rate at the minimum: the output rose with the
     * capacity.
     */
    private static void assertRisesWithTheCapacity(long[] released, CapacitySamples samples, long fromMs, long toMs,
                                                   double minRate) {
        long[] recovery = between(released, fromMs, toMs);
        for (int first = 0, last = 0; first < recovery.length; first++) {
            while (last < recovery.length && recovery[last] - recovery[first] < 1_000_000_000L) {
                last++;
            }
            long startMs = recovery[first] / 1_000_000L;
            double ceiling = samples.highestInEffect(startMs - 100, startMs + 1_100);
            assertThat(last - first).as("releases in the second from %d ms, capacity at most %s/s", startMs, ceiling)
                    .isLessThanOrEqualTo((int) Math.floor(ceiling) + 1);
        }
        double lastRate = ArrivalStats.fittedRatePerSecond(between(released, toMs - 2_000, toMs));
        LOG.info("recovery: {}/s in its last 2 s, {}/s at the minimum", lastRate, minRate);
        assertThat(lastRate).isGreaterThan(3 * minRate);
    }

    private static JsonNode capacityJson(ShaperInstance instance) throws Exception {
        Http.Response answer = Http.get(instance.application().httpPort(), "/capacity");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    /** Lets {@code ms} of wall-clock time pass: the loop decides on the broker's and the writers' real time. */
    private static void awaitFor(long ms) {
        awaitUntil(System.currentTimeMillis() + ms);
    }

    private static void awaitUntil(long atMs) {
        Await.until("the clock at " + atMs, Duration.ofMillis(Math.max(0, atMs - System.currentTimeMillis()) + 5_000),
                () -> System.currentTimeMillis() >= atMs);
    }

    private static long[] releaseTimes(List<CollectedRecord> collected) {
        return collected.stream().filter(CollectedRecord::isOutput).mapToLong(r -> r.releasedAtMs() * 1_000_000L)
                .sorted().toArray();
    }

    private static long[] between(long[] releasedNanos, long fromMs, long toMs) {
        return Arrays.stream(releasedNanos).filter(t -> t >= fromMs * 1_000_000L && t < toMs * 1_000_000L).toArray();
    }

    private static double malformed(ShaperInstance instance) {
        return instance.meters().get(ShaperMetrics.CAPACITY_FEEDBACK_MALFORMED).functionCounter().count();
    }
}
