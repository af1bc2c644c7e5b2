package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionDecision;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.RedisLimits;
import dev.shaper.internals.scheduling.DaemonThreadScheduler;
import dev.shaper.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several limits per key on a real redis-server, in real time: "10 per second and 30 per minute together admit 30
 * in the first minute, then 10/s stops binding", scaled down to 10 per 100 ms and 30 per 6 s, since Redis's clock
 * cannot be advanced. Each algorithm in strict and batched mode, all six on keys of their own at once, offered a record
 * every 2 ms from the start of a 6 s window (aligned to Redis's clock) until 6.6 s. The same scenario at full scale,
 * on a clock the test controls, is {@code LocalLimitsTest} (the local fallback).
 *
 * <p>Times are Redis's, as the scripts see them: the test maps its own clock to Redis's once, at the start, and each
 * decision is known to lie between the test's clock before and after the call. A figure counts what was surely
 * admitted in a window (the whole call in it) against the limit, and what was possibly admitted (the call meets the
 * window) against what must be admitted: a busy machine stretches the calls, never the limits.
 */
class AdmissionLimitsIT {

    private static final Logger LOG = LoggerFactory.getLogger(AdmissionLimitsIT.class);
    private static final long MS = 1_000_000L;
    private static final long WINDOW = 6000 * MS;
    private static final long STEP = 2 * MS;

    /**
     * One decision, made between {@code fromNanos} and {@code toNanos} on Redis's clock, relative to the start of
     * the window: a busy machine may stretch that span, so a figure counts a decision in a window only where its whole
     * span lies in it ("surely"), or wherever its span meets it ("possibly").
     */
    private record Decision(long fromNanos, long toNanos, AdmissionDecision decision) {
        long atNanos() {
            return (fromNanos + toNanos) / 2;
        }
    }

    private record Run(AdmissionMode mode, AdmissionAlgorithm algorithm) {
        @Override
        public String toString() {
            return mode.name().toLowerCase() + " " + algorithm;
        }
    }

    @Test
    void tenPerHundredMsAndThirtyPerSixSecondsTogetherOnRedis() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisClient client = RedisClient.create(server.uri());
            List<AdmissionController> controllers = new ArrayList<>();
            // A thread per run: every run offers its records in the same window
            ExecutorService threads = Executors.newFixedThreadPool(AdmissionMode.values().length
                    * AdmissionAlgorithm.all().size());
            try (StatefulRedisConnection<String, String> direct = client.connect()) {
                Map<Run, AdmissionController> runs = new LinkedHashMap<>();
                for (AdmissionMode mode : AdmissionMode.values()) {
                    for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
                        AdmissionController controller = new AdmissionController(new RedisLimits(server.uri(),
                                Duration.ofSeconds(1), Duration.ofMillis(100)), mode, Duration.ofMillis(50),
                                Duration.ofSeconds(1), () -> 1, new DaemonThreadScheduler("admission-" + mode),
                                System::nanoTime);
                        controller.start();
                        controllers.add(controller);
                        runs.put(new Run(mode, algorithm), controller);
                    }
                }
                // Warm up: every script loaded and every code path compiled before the window that counts
                for (Map.Entry<Run, AdmissionController> e : runs.entrySet()) {
                    for (int i = 0; i < 200; i++) {
                        e.getValue().admit(key("warm-up"), policy(e.getKey().algorithm()), 1, null);
                    }
                }
                // The test's clock as Redis's: Redis's time = System.nanoTime() + offset, from the quickest of 20
                // round trips (the error is at most half of it)
                long offset = 0;
                long quickest = Long.MAX_VALUE;
                for (int i = 0; i < 20; i++) {
                    long before = System.nanoTime();
                    List<String> time = direct.sync().time();
                    long after = System.nanoTime();
                    if (after - before < quickest) {
                        quickest = after - before;
                        long redisNanos = (Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)))
                                * 1000;
                        offset = redisNanos - (before + after) / 2;
                    }
                }
                LOG.info("Redis's clock mapped to within {} us", quickest / 2000);
                long windowStart = (Math.floorDiv(System.nanoTime() + offset, WINDOW) + 1) * WINDOW;
                long startLocal = windowStart - offset;

                Map<Run, Future<List<Decision>>> results = new LinkedHashMap<>();
                for (Map.Entry<Run, AdmissionController> e : runs.entrySet()) {
                    Run run = e.getKey();
                    AdmissionController controller = e.getValue();
                    results.put(run, threads.submit(() -> offer(controller, key(run.toString()),
                            policy(run.algorithm()), startLocal)));
                }
                for (Map.Entry<Run, Future<List<Decision>>> e : results.entrySet()) {
                    check(e.getKey(), e.getValue().get());
                }
            } finally {
                threads.shutdownNow();
                controllers.forEach(AdmissionController::close);
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** 10 per 100 ms and 30 per 6 s (a token bucket's bursts: 10 and 30). */
    private static AdmissionPolicy policy(AdmissionAlgorithm algorithm) {
        return new AdmissionPolicy(algorithm, List.of(new AdmissionLimit(10, 100, 10), new AdmissionLimit(30, 6000, 30)));
    }

    /**
     * A record every 2 ms from 10 ms into the window (well clear of the previous window, whatever the clock mapping's
     * error) until 6.6 s; each decision at Redis's time.
     */
    private static List<Decision> offer(AdmissionController controller, byte[] key, AdmissionPolicy policy,
                                        long startLocal) {
        List<Decision> decisions = new ArrayList<>();
        for (long t = startLocal + 10 * MS; t < startLocal + WINDOW + 600 * MS; t += STEP) {
            LockSupport.parkNanos(t - System.nanoTime());
            long from = System.nanoTime();
            AdmissionDecision decision = controller.admit(key, policy, 1, null);
            decisions.add(new Decision(from - startLocal, System.nanoTime() - startLocal, decision));
        }
        return decisions;
    }

    /** Admitted surely within [from, to): the decision's whole span lies in it. */
    private static long admitted(List<Decision> decisions, long fromNanos, long toNanos) {
        return decisions.stream().filter(d -> d.decision.allowed() && d.fromNanos >= fromNanos && d.toNanos < toNanos)
                .count();
    }

    /** Admitted possibly within [from, to): the decision's span meets it. */
    private static long possiblyAdmitted(List<Decision> decisions, long fromNanos, long toNanos) {
        return decisions.stream().filter(d -> d.decision.allowed() && d.toNanos >= fromNanos && d.fromNanos < toNanos)
                .count();
    }

    /** The most admitted surely in one of Redis's 100 ms windows within [from, to). */
    private static long mostPer100Ms(List<Decision> decisions, long fromNanos, long toNanos) {
        long most = 0;
        for (long w = fromNanos; w < toNanos; w += 100 * MS) {
            most = Math.max(most, admitted(decisions, w, w + 100 * MS));
        }
        return most;
    }

    private static void check(Run run, List<Decision> decisions) {
        List<Decision> allowed = decisions.stream().filter(d -> d.decision.allowed()).toList();
        long thirtieth = allowed.size() >= 30 ? allowed.get(29).fromNanos : Long.MAX_VALUE;
        long inWindow = admitted(decisions, 0, WINDOW);
        long possiblyInWindow = possiblyAdmitted(decisions, 0, WINDOW);
        long afterBoundary = admitted(decisions, WINDOW, WINDOW + 100 * MS);
        long possiblyAfterBoundary = possiblyAdmitted(decisions, WINDOW, WINDOW + 100 * MS);
        LOG.info("{}: 30th admitted at {} ms, {} ({} possibly) in the 6 s window, {} ({} possibly) in the first 100 ms"
                        + " after it, at most {} per 100 ms window in the first second", run, thirtieth / MS, inWindow,
                possiblyInWindow, afterBoundary, possiblyAfterBoundary, mostPer100Ms(decisions, 0, 1000 * MS));
        boolean batched = run.mode() == AdmissionMode.BATCHED;
        // The 30 come first, at 10 per 100 ms: within the first few 100 ms windows (a batched mirror learns Redis's
        // windows at its first sync: until then it may admit 10 in each of its own, misaligned, windows; a token
        // bucket admits its burst of 10 and then 10 per 100 ms)
        assertThat(thirtieth).as(run + ": the 30th at (ns)").isLessThan(600 * MS);
        // (one record of slack: the clock mapping's error may move a record across a 100 ms boundary)
        assertThat(mostPer100Ms(decisions, 0, 1000 * MS)).as(run + ": most per 100 ms").isLessThanOrEqualTo(
                batched || run.algorithm().hasBurst() ? 20 : 11);
        // Then 10 per 100 ms stops binding: every later refusal within the window is the 6 s limit's
        List<Decision> later = decisions.stream().filter(d -> !d.decision.allowed()
                && d.fromNanos > thirtieth + 100 * MS && d.toNanos < WINDOW).toList();
        assertThat(later).as(run + ": later refusals").isNotEmpty()
                .allSatisfy(d -> assertThat(d.decision.limit()).as(run + " at %d ms", d.atNanos() / MS).isEqualTo(1));
        if (run.algorithm() == AdmissionAlgorithm.FIXED_WINDOW) {
            // Exactly 30 in the 6 s window; its refusals wait for the window's end; the next window admits 10
            // per 100 ms again at once
            assertThat(inWindow).as(run + ": surely in the window").isLessThanOrEqualTo(30);
            assertThat(possiblyInWindow).as(run + ": possibly in the window").isGreaterThanOrEqualTo(30);
            Decision first = later.get(0);
            assertThat(first.decision.retryAfterMs()).as(run + ": retry-after")
                    .isBetween((WINDOW - first.toNanos) / MS - 20, (WINDOW - first.fromNanos) / MS + 20);
            assertThat(afterBoundary).as(run + ": surely just after the window").isLessThanOrEqualTo(10);
            // (of the offers the test's thread made then: a busy machine may hold it back for most of the 100 ms)
            long offeredAfterBoundary = decisions.stream()
                    .filter(d -> d.fromNanos >= WINDOW && d.toNanos < WINDOW + 100 * MS).count();
            assertThat(possiblyAfterBoundary).as(run + ": possibly just after the window, of %d offered",
                    offeredAfterBoundary).isGreaterThanOrEqualTo(Math.min(7, offeredAfterBoundary - 3));
        } else if (run.algorithm() == AdmissionAlgorithm.SLIDING_WINDOW) {
            // Exactly 30 in the 6 s window, and no burst after it: its 30 still weigh 29 in the first 200 ms
            assertThat(inWindow).as(run + ": surely in the window").isLessThanOrEqualTo(30);
            assertThat(possiblyInWindow).as(run + ": possibly in the window").isGreaterThanOrEqualTo(30);
            assertThat(afterBoundary).as(run + ": surely just after the window").isZero();
        } else {
            // A token bucket: the 30's bucket refills at 5/s: one record every 200 ms after the first 30
            assertThat(admitted(decisions, 1000 * MS, WINDOW)).as(run + ": surely from 1 s to 6 s")
                    .isLessThanOrEqualTo(27);
            assertThat(possiblyAdmitted(decisions, 1000 * MS, WINDOW)).as(run + ": possibly from 1 s to 6 s")
                    .isGreaterThanOrEqualTo(23);
            assertThat(mostPer100Ms(decisions, 1000 * MS, WINDOW - 100 * MS)).isLessThanOrEqualTo(2);
        }
    }
}
