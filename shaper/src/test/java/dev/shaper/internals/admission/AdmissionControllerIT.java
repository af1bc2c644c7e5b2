package dev.shaper.internals.admission;

import static dev.shaper.internals.admission.AdmissionAlgorithms.oneBucket;
import dev.shaper.internals.redis.RedisClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CapturedLog;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admission controller against a real redis-server of its own (one per test, on a free port), which the
 * tests kill, restart and pause. The controller's background work (pings, syncs) runs on a {@link ManualScheduler}
 * whose clock is also the local buckets' and the mirrors': the tests advance it, so its figures are exact and no
 * test sleeps. Redis's own clock is real, so Redis-side figures use a rate whose refill during a test is
 * negligible ({@link #SLOW}), or move a bucket's last refill into the past instead of waiting. Where a test waits
 * for Redis itself (to answer again after a restart or a pause), it polls with {@link Await}.
 */
class AdmissionControllerIT {

    /** Short, so that switching back is quick; the production default is 1 s. */
    private static final Duration PING = Duration.ofMillis(200);
    /** Generous for a loaded 2-core machine, where a healthy loopback Redis must never count as down. */
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration SYNC = Duration.ofMillis(50);
    /** Rate at which refill during a test is negligible: under 0.01 token in 10 s. */
    private static final double SLOW = 0.001;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private CapturedLog logs;
    private RedisServer server;
    private RedisClient directClient;
    private StatefulRedisConnection<String, String> direct;

    @BeforeEach
    void setUp() {
        logs = CapturedLog.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        if (directClient != null) {
            directClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (server != null) {
            server.close();
        }
        logs.close();
    }

    private RedisServer startRedis() {
        server = RedisServer.start();
        return server;
    }

    private AdmissionController controller(AdmissionMode mode, Duration timeout) {
        return controller(mode, timeout, 1);
    }

    private AdmissionController controller(AdmissionMode mode, Duration timeout, int liveInstances) {
        return controller(server.uri(), mode, timeout, SYNC, liveInstances);
    }

    private AdmissionController controller(String uri, AdmissionMode mode, Duration timeout) {
        return controller(uri, mode, timeout, SYNC, 1);
    }

    /** A started controller, as ShaperApplication makes it, on the test's scheduler and clock. */
    private AdmissionController controller(String uri, AdmissionMode mode, Duration timeout, Duration sync,
                                           int liveInstances) {
        RedisLimits redis = new RedisLimits(uri, timeout, RedisClients.reconnectDelayFor(PING));
        AdmissionController controller = new AdmissionController(redis, mode, sync, PING, () -> liveInstances,
                scheduler, scheduler::nanoTime);
        resources.add(controller);
        controller.start();
        scheduler.runDue(); // the first count of live instances
        return controller;
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldDecideLocallyForABucketKeyOfTheWrongTypeWithoutLeavingRedis() throws Exception {
        startRedis();
        // Given: something else wrote a plain string where the bucket of "bad" would live
        server.call("SET", "shaper:tb:{bad}", "not a bucket");
        AdmissionPolicy rule = oneBucket(SLOW, 2);
        for (AdmissionMode mode : AdmissionMode.values()) {
            AdmissionController controller = controller(mode, TIMEOUT);
            // When: records of "bad" and of a healthy key arrive
            int bad = admitted(controller, "bad", rule, 5);
            int good = admitted(controller, "good-" + mode, rule, 5);
            if (mode == AdmissionMode.BATCHED) {
                // the sync that charges "good" charges "bad" in the same pipeline
                scheduler.advance(SYNC);
                assertThat(shared("good-" + mode, rule)).as("the batched sync charged good").isLessThan(1);
            }
            // Then: "bad" is limited by a local bucket and counted as unusable, the others stay on Redis, and
            // nothing switched
            assertThat(bad).as(mode + " bad").isEqualTo(2);
            assertThat(controller.unusableKeys()).as(mode + " unusable keys").isPositive();
            assertThat(good).as(mode + " good").isEqualTo(2);
            assertThat(controller.backend()).as(mode.name()).isEqualTo(AdmissionController.Backend.REDIS);
            assertThat(controller.switchesToLocal()).as(mode.name()).isZero();
        }
        assertThat(server.call("GET", "shaper:tb:{bad}")).isEqualTo("not a bucket");
    }

    @Test
    void shouldChargeThousandsOfKeysPerSyncWithoutCountingAHealthyRedisAsDown() throws Exception {
        startRedis();
        // Given: batched mode, and far more keys than one round trip carries. A round trip must stay far inside
        // the timeout of a healthy Redis (50 ms by default), so a sync sends its charges in chunks; the chunks
        // are counted here rather than timed, since a loaded machine can make any one round trip slow.
        AdmissionController controller = controller(AdmissionMode.BATCHED, TIMEOUT);
        AtomicInteger roundTrips = new AtomicInteger();
        controller.observeRedisCalls((command, nanos) -> {
            if (command.equals("charge")) {
                roundTrips.incrementAndGet();
            }
        });
        AdmissionPolicy rule = oneBucket(SLOW, 2);
        int keys = 5_000;
        // When: each key spends a token, and a sync runs
        for (int i = 0; i < keys; i++) {
            assertThat(controller.admit(key("many-" + i), rule, 1).allowed()).isTrue();
        }
        scheduler.advance(SYNC);
        // Then: the sync charged them all, in chunks of at most CHARGE_CHUNK keys, and admission never left Redis
        for (int i = 0; i < keys; i += 97) {
            assertThat(shared("many-" + i, rule)).as("many-" + i + " charged").isLessThan(1.5);
        }
        assertThat(shared("many-" + (keys - 1), rule)).as("the last key charged").isLessThan(1.5);
        int chunk = RedisLimits.CHARGE_CHUNK;
        assertThat(roundTrips).as("round trips of a sync").hasValue((keys + chunk - 1) / chunk);
        assertThat(controller.switchesToLocal()).isZero();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
    }

    private static int mirroredKeys(AdmissionController controller) {
        return ((BatchedRedisBackend) controller.redisBackend()).mirroredKeys();
    }

    /** Admits {@code times} unit-cost records and returns how many were allowed. */
    private static int admitted(AdmissionController controller, String key, AdmissionPolicy rule, int times) {
        int allowed = 0;
        for (int i = 0; i < times; i++) {
            if (controller.admit(key(key), rule, 1).allowed()) {
                allowed++;
            }
        }
        return allowed;
    }

    /** A mirror's or local bucket's balance: a cost-0 admission takes nothing. */
    private static double tokens(AdmissionController controller, String key, AdmissionPolicy rule) {
        return controller.admit(key(key), rule, 0).tokensLeft();
    }

    /** The shared balance in Redis, read as any other client would (a charge of 0 changes nothing). */
    private double shared(String key, AdmissionPolicy rule) {
        return runScript(key, rule, 0, "charge");
    }

    /** A connection of the test's own to the server, as another service would have. */
    private StatefulRedisConnection<String, String> direct() {
        if (direct == null) {
            directClient = RedisClient.create(server.uri());
            direct = directClient.connect();
        }
        return direct;
    }

    /** Runs the script on the shared bucket of {@code key} directly, as another service would. */
    private double runScript(String key, AdmissionPolicy rule, double cost, String mode) {
        List<Object> reply = direct().sync().eval(AdmissionAlgorithm.TOKEN_BUCKET.script().source(),
                ScriptOutputType.MULTI,
                new String[] {"shaper:tb:{" + key + "}"}, Double.toString(rule.limit(0).ratePerSecond()),
                Double.toString(rule.limit(0).burst()), Double.toString(cost), mode);
        return LimitScript.parse(AdmissionAlgorithm.TOKEN_BUCKET, reply, 1).left()[0];
    }

    /**
     * Polls until the controller is on Redis again, running the work a reconnect hands the scheduler and moving
     * its clock on by a ping interval per poll, as the periodic ping would; returns the real nanoseconds it took.
     * Only for keys whose local refill over those intervals is negligible ({@link #SLOW}).
     */
    private long awaitBackOnRedis(AdmissionController controller) {
        long start = System.nanoTime();
        Await.until(() -> "still " + controller.backend() + ", " + controller.redisFailure(), Duration.ofSeconds(10),
                () -> {
                    scheduler.advance(PING);
                    return controller.backend() == AdmissionController.Backend.REDIS;
                });
        return System.nanoTime() - start;
    }

    /**
     * Moves the last refill of the shared bucket of {@code key} back by {@code elapsed}, as if that much more of
     * Redis's time had passed: Redis's clock cannot be advanced, and waiting for it would make the test sleep.
     */
    private void shiftBucketTime(String key, Duration elapsed) {
        direct().sync().hincrby("shaper:tb:{" + key + "}", "ts", -elapsed.toNanos() / 1000);
    }

    /** The admission's lines about this test's Redis (or none): other classes run beside it. */
    private List<String> admissionLog(Level level, String fragment) {
        return logs.lines(AdmissionController.class, level, fragment,
                server == null ? List.of() : List.of(server.port()));
    }

    @Test
    void strictModeAdmitsExactlyTheBurstThenTheRefill() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.STRICT, TIMEOUT);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);

        AdmissionPolicy burstOnly = oneBucket(SLOW, 20);
        assertThat(admitted(controller, "burst", burstOnly, 30)).isEqualTo(20);
        AdmissionDecision refused = controller.admit(key("burst"), burstOnly, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfterMs()).isBetween(990_000L, 1_000_000L); // 1 token at 0.001/s

        // rate 20/s, burst 5, asked every 5 ms of the bucket's time for 600 ms (each step moves its last refill
        // 5 ms into the past): each token is taken soon after it refills, so the count is the burst plus the
        // refill over the time between the first and the last call (the steps, and Redis's clock meanwhile),
        // which lies between the bounds measured here. One token of slack for a late last poll.
        AdmissionPolicy rule = oneBucket(20, 5);
        Duration step = Duration.ofMillis(5);
        int steps = 120;
        long beforeFirst = System.nanoTime();
        int allowed = controller.admit(key("refill"), rule, 1).allowed() ? 1 : 0;
        long afterFirst = System.nanoTime();
        long beforeLast = afterFirst;
        for (int i = 0; i < steps; i++) {
            shiftBucketTime("refill", step);
            beforeLast = System.nanoTime();
            allowed += controller.admit(key("refill"), rule, 1).allowed() ? 1 : 0;
        }
        long afterLast = System.nanoTime();

        long shifted = step.toNanos() * steps;
        long atLeast = (long) Math.floor(5 + 20 * (shifted + beforeLast - afterFirst) / 1e9) - 1;
        long atMost = (long) Math.floor(5 + 20 * (shifted + afterLast - beforeFirst) / 1e9);
        assertThat((long) allowed).isBetween(atLeast, atMost);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(controller.switchesToLocal()).isZero();
    }

    @Test
    void whenRedisDiesAdmissionSwitchesToLocalSharesOnceAndBackWhenItReturns() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.STRICT, TIMEOUT, 2);
        AdmissionPolicy rule = oneBucket(10, 10);
        assertThat(admitted(controller, "k", rule, 3)).isEqualTo(3);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);

        server.kill();
        long before = System.nanoTime();
        AdmissionDecision first = controller.admit(key("k"), rule, 1);
        long failoverNanos = System.nanoTime() - before;
        assertThat(first.allowed()).as("admitted from the local bucket").isTrue();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        // The failed call is bounded by the timeout (500 ms); 2 s of slack for a loaded machine.
        assertThat(failoverNanos).isLessThan(TIMEOUT.plusSeconds(2).toNanos());

        // The local share of 2 instances: rate 5/s, burst 5, on the scheduler's clock, starting from half of the 7
        // tokens Redis last said were left.
        assertThat(1 + admitted(controller, "k", rule, 20)).isEqualTo(3);
        AdmissionDecision empty = controller.admit(key("k"), rule, 1);
        assertThat(empty.allowed()).isFalse();
        // The missing half token at 5/s: 100 ms, less what Redis refilled on its own clock between the calls.
        assertThat(empty.retryAfterMs()).isBetween(1L, 100L);
        // Meanwhile the monitor fails a ping every interval: they neither switch, count nor log.
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(admitted(controller, "k", rule, 20)).isEqualTo(5);
        scheduler.advance(Duration.ofMillis(200));
        assertThat(admitted(controller, "k", rule, 20)).isEqualTo(1);
        scheduler.advance(Duration.ofSeconds(60));
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(admitted(controller, "k", rule, 20)).as("capped at the burst share").isEqualTo(5);

        // When Redis answers again, the client's reconnect hands the scheduler a ping at once: admission is back
        // without waiting for the next tick, well within the two ping intervals promised. Only the reconnect is
        // awaited; the scheduler's clock stands still, so "k" hands back the empty bucket it has now.
        server.restart();
        long restartedAt = scheduler.nanoTime();
        long realStart = System.nanoTime();
        Await.until("back on Redis at the reconnect", Duration.ofSeconds(10), () -> {
            scheduler.runDue();
            return controller.backend() == AdmissionController.Backend.REDIS;
        });
        long backNanos = scheduler.nanoTime() - restartedAt;
        System.out.printf("Admission: failover took %.1f ms; back on Redis %.1f ms after it answered again"
                + " (ping interval %d ms, reconnect delay %d ms)%n", failoverNanos / 1e6,
                (System.nanoTime() - realStart) / 1e6, PING.toMillis(),
                RedisClients.reconnectDelayFor(PING).toMillis());
        assertThat(backNanos).as("on the scheduler's clock").isLessThanOrEqualTo(PING.multipliedBy(2).toNanos());

        // The restarted Redis is empty, but "k" spent its local bucket: its shared bucket holds what the two
        // instances' shares say is left (2 x 0), not a fresh burst. A key not limited locally gets the whole rule.
        assertThat(controller.admit(key("k"), rule, 1).allowed()).isFalse();
        AdmissionDecision other = controller.admit(key("other"), rule, 1);
        assertThat(other.allowed()).isTrue();
        assertThat(other.tokensLeft()).isCloseTo(9, within(0.5));

        assertThat(controller.switchesToLocal()).isEqualTo(1);
        assertThat(controller.switchesToRedis()).isEqualTo(1);
        assertThat(admissionLog(Level.WARN, "admitting from local buckets at 1/2 of each rate")).hasSize(1);
        assertThat(admissionLog(Level.INFO, "back on Redis")).hasSize(1);
        assertThat(admissionLog(Level.WARN, "")).hasSize(1);
    }

    @Test
    void aRedisThatDoesNotAnswerWithinTheTimeoutCountsAsDown() throws Exception {
        startRedis();
        Duration timeout = Duration.ofMillis(100);
        Duration pause = Duration.ofSeconds(2);
        AdmissionController controller = controller(AdmissionMode.STRICT, timeout);
        AdmissionPolicy rule = oneBucket(10, 10);
        assertThat(admitted(controller, "k", rule, 2)).isEqualTo(2);

        long pausedAt = System.nanoTime();
        server.pause(pause);
        AdmissionDecision decision = controller.admit(key("k"), rule, 1);
        long waitedNanos = System.nanoTime() - pausedAt;
        assertThat(decision.allowed()).isTrue();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        // Bounded by the 100 ms timeout, not by the 2 s pause; 900 ms of slack for a loaded machine.
        assertThat(waitedNanos).isLessThan(Duration.ofSeconds(1).toNanos());

        // While paused, the monitor's pings time out too: still local.
        Await.until("the pause nearly over", Duration.ofSeconds(10), () -> {
            scheduler.advance(PING);
            assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
            return System.nanoTime() - pausedAt >= pause.minusMillis(300).toNanos();
        });
        long backNanos = awaitBackOnRedis(controller);
        long sincePause = System.nanoTime() - pausedAt;
        System.out.printf("Admission: paused Redis: failover after %.1f ms; back on Redis %.1f ms after the"
                + " %d ms pause began%n", waitedNanos / 1e6, sincePause / 1e6, pause.toMillis());
        assertThat(sincePause).as("not before the pause ends").isGreaterThan(pause.minusMillis(50).toNanos());
        assertThat(backNanos).isPositive();
        assertThat(controller.switchesToLocal()).isEqualTo(1);
        assertThat(controller.switchesToRedis()).isEqualTo(1);
        assertThat(admissionLog(Level.WARN, "failed")).hasSize(1);
    }

    @Test
    void startsOnLocalBucketsWhenRedisIsDownAndSwitchesWhenItAnswers() throws Exception {
        startRedis();
        server.kill();
        AdmissionController controller = controller(AdmissionMode.STRICT, TIMEOUT);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(controller.switchesToLocal()).isEqualTo(1);
        assertThat(admissionLog(Level.WARN, "does not answer")).hasSize(1);
        AdmissionPolicy rule = oneBucket(SLOW, 4);
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(4);

        server.restart();
        long backNanos = awaitBackOnRedis(controller);
        System.out.printf("Admission: started without Redis; on Redis %.1f ms after it answered%n", backNanos / 1e6);
        assertThat(controller.switchesToRedis()).isEqualTo(1);
        // The 4 tokens spent locally carry over: Redis's fresh bucket is lowered to what the local one left.
        assertThat(admitted(controller, "k", rule, 10)).as("no second burst").isZero();
        assertThat(shared("k", rule)).isCloseTo(0, within(0.01));
    }

    @Test
    void aFirstConnectionSlowerThanTheCommandTimeoutIsNeitherAnOutageNorASwitch() throws Exception {
        startRedis();
        // Given: the first connection takes longer than a command may (in a cold JVM the client's class loading,
        // Netty's start and a TLS handshake do; here Redis holds the handshake back), and Redis is healthy
        server.pause(Duration.ofMillis(600));
        for (AdmissionMode mode : AdmissionMode.values()) {
            // When: the admission starts with the default 50 ms timeout
            AdmissionController controller = controller(mode, Duration.ofMillis(50));
            // Then: it starts on Redis, and counts and logs no switch
            assertThat(controller.backend()).as(mode.name()).isEqualTo(AdmissionController.Backend.REDIS);
            assertThat(controller.switchesToLocal()).as(mode.name()).isZero();
        }
        assertThat(admissionLog(Level.WARN, "")).isEmpty();
    }

    @Test
    void strictSwitchesCarryEachKeysBalanceOverInsteadOfGrantingAFreshBurst() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.STRICT, TIMEOUT, 2);
        AdmissionPolicy rule = oneBucket(SLOW, 10);
        // Given: "k" spent 6 of its 10 tokens in Redis
        assertThat(admitted(controller, "k", rule, 6)).isEqualTo(6);

        // When: Redis dies. Then: the local bucket starts from this instance's half of the 4 left, not from 5
        server.kill();
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(2);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);

        // When: Redis is back, empty (its buckets start full). Then: "k" gets what the local bucket left, 2 x 0
        server.restart();
        awaitBackOnRedis(controller);
        assertThat(admitted(controller, "k", rule, 10)).isZero();
        assertThat(shared("k", rule)).isCloseTo(0, within(0.01));
    }

    @Test
    void batchedSwitchesCarryEachKeysBalanceOverInsteadOfGrantingAFreshBurst() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.BATCHED, TIMEOUT, 2);
        AdmissionPolicy rule = oneBucket(SLOW, 10);
        // Given: "k" spent 6 of its 10 tokens, charged to Redis
        assertThat(admitted(controller, "k", rule, 6)).isEqualTo(6);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("synced").isCloseTo(4, within(0.01));

        // When: Redis dies, and the sync that would charge one more token fails
        server.kill();
        assertThat(admitted(controller, "k", rule, 1)).isEqualTo(1);
        scheduler.advance(SYNC);
        assertThat(controller.backend()).as("local after a failed sync").isEqualTo(AdmissionController.Backend.LOCAL);
        // Then: the local bucket starts from half of the mirror's 3 tokens, not from half of the burst
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(1);

        // When: Redis is back, empty. Then: the shared bucket holds what the two shares leave (2 x 0.5) once the
        // pending token is charged, not a fresh 10
        server.restart();
        awaitBackOnRedis(controller);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("the pending token charged").isCloseTo(1, within(0.01));
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(1);
    }

    @Test
    void batchedMirrorsTakeInWhatOthersConsumed() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.BATCHED, TIMEOUT);
        AdmissionPolicy rule = oneBucket(SLOW, 100);

        // Another service takes 30 tokens from the shared bucket with the same script; this instance's
        // fresh mirror does not know yet and admits 10, then its sync charges them and adopts the balance.
        runScript("k", rule, 30, "take");
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(10);
        scheduler.advance(SYNC);
        // The mirror and Redis agree on 100 - 30 - 10.
        assertThat(shared("k", rule)).isCloseTo(60, within(0.01));
        assertThat(tokens(controller, "k", rule)).isCloseTo(60, within(0.01));
        // The mirror (on the scheduler's clock, which stands still meanwhile) admits exactly what is left in Redis.
        assertThat(admitted(controller, "k", rule, 100)).isEqualTo(60);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("Redis charged the 60").isCloseTo(0, within(0.01));
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(controller.switchesToLocal()).isZero();
    }

    @Test
    void aKeysAdmissionStateKeepsItsMirrorAndOneTheSyncForgotIsReplacedWithoutLosingACharge() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.BATCHED, TIMEOUT);
        AdmissionPolicy rule = oneBucket(SLOW, 100);
        KeyAdmission perKey = new KeyAdmission();

        for (int i = 0; i < 10; i++) {
            assertThat(controller.admit(key("k"), rule, 1, perKey).allowed()).isTrue();
        }
        LimitsMirror mirror = perKey.mirror;
        assertThat(mirror).as("the key's mirror, kept for its next records").isNotNull();
        assertThat(controller.admit(key("k"), rule, 0, perKey).tokensLeft()).isCloseTo(90, within(0.01));
        assertThat(perKey.mirror).isSameAs(mirror);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("the 10 charged").isCloseTo(90, within(0.01));

        // Idle for longer than the sync keeps a mirror with nothing to charge (100 sync intervals): forgotten.
        scheduler.advance(SYNC.multipliedBy(101));
        assertThat(mirroredKeys(controller)).as("the sync forgot the idle mirror").isZero();

        // The stale mirror is noticed: the take goes to a new mirror, which the next sync charges.
        for (int i = 0; i < 7; i++) {
            assertThat(controller.admit(key("k"), rule, 1, perKey).allowed()).isTrue();
        }
        assertThat(perKey.mirror).isNotNull().isNotSameAs(mirror);
        assertThat(mirroredKeys(controller)).isEqualTo(1);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("the 7 charged").isCloseTo(83, within(0.01));
        // Both paths share the mirrors: a take without the key's state draws on the same one.
        assertThat(tokens(controller, "k", rule)).as("the new mirror adopted the shared balance")
                .isCloseTo(83, within(0.01));
        assertThat(controller.admit(key("k"), rule, 0, perKey).tokensLeft()).isCloseTo(83, within(0.01));
    }

    @Test
    void batchedSyncChargesEveryControllersConsumptionToTheSharedBucket() throws Exception {
        startRedis();
        AdmissionController a = controller(AdmissionMode.BATCHED, TIMEOUT);
        AdmissionController b = controller(AdmissionMode.BATCHED, TIMEOUT);
        AdmissionPolicy rule = oneBucket(SLOW, 100);

        // Both sync on the test's scheduler, A first.
        assertThat(admitted(a, "k", rule, 30)).isEqualTo(30);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("A's 30 charged").isCloseTo(70, within(0.01));
        assertThat(tokens(a, "k", rule)).isCloseTo(70, within(0.01));
        assertThat(admitted(b, "k", rule, 20)).isEqualTo(20);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("B's 20 charged").isCloseTo(50, within(0.01));
        assertThat(tokens(b, "k", rule)).isCloseTo(50, within(0.01));
        // A mirror is refreshed when its instance has consumption to charge: A takes in B's 20 with its next.
        assertThat(tokens(a, "k", rule)).isCloseTo(70, within(0.01));
        assertThat(admitted(a, "k", rule, 1)).isEqualTo(1);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).isCloseTo(49, within(0.01));
        assertThat(tokens(a, "k", rule)).as("A sees B's consumption").isCloseTo(49, within(0.01));

        // Both spend their mirror (A 49, B still 50) before the other's charge reaches them: the documented
        // excess, at most (N - 1) x (B + r x S), is charged to the shared bucket, which goes negative and
        // refuses until the debt is refilled.
        int byA = admitted(a, "k", rule, 100);
        int byB = admitted(b, "k", rule, 100);
        assertThat(byA).isEqualTo(49);
        assertThat(byB).isEqualTo(50);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("Redis charged both").isCloseTo(-50, within(0.01));
        double bound = (2 - 1) * (rule.limit(0).burst() + rule.limit(0).ratePerSecond() * SYNC.toMillis() / 1000.0);
        assertThat(byA + byB - 49).as("excess over the 49 tokens left").isLessThanOrEqualTo((int) bound);
        assertThat(Math.min(tokens(a, "k", rule), tokens(b, "k", rule))).as("the last to sync sees the debt")
                .isLessThan(-49.99);
        assertThat(a.admit(key("k"), rule, 1).allowed()).isFalse();
        assertThat(b.admit(key("k"), rule, 1).allowed()).isFalse();
        assertThat(a.switchesToLocal() + b.switchesToLocal()).isZero();
    }

    @Test
    void batchedConsumptionAdmittedBeforeAnOutageIsChargedOnceAfterIt() throws Exception {
        startRedis();
        AdmissionController controller = controller(AdmissionMode.BATCHED, TIMEOUT);
        AdmissionPolicy rule = oneBucket(SLOW, 100);
        assertThat(admitted(controller, "k", rule, 5)).isEqualTo(5);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("synced").isCloseTo(95, within(0.01));

        server.kill();
        // Admitted from the mirror; the sync that tries to charge them fails and switches to local.
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(10);
        scheduler.advance(SYNC);
        assertThat(controller.backend()).as("local after a failed sync").isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(controller.switchesToLocal()).isEqualTo(1);

        // Empty, so the bucket starts full; the return lowers it to the 95 known before the outage, and the sync
        // charges the pending 10 on top.
        server.restart();
        awaitBackOnRedis(controller);
        scheduler.advance(SYNC);
        assertThat(shared("k", rule)).as("the pending 10 charged").isCloseTo(85, within(0.01));
        scheduler.advance(SYNC.multipliedBy(4)); // a few more syncs: nothing is charged twice
        assertThat(shared("k", rule)).isCloseTo(85, within(0.01));
        assertThat(controller.switchesToRedis()).isEqualTo(1);
    }

    @Test
    void closingChargesWhatTheBatchedModeAdmittedSinceItsLastSync() throws Exception {
        startRedis();
        // A sync interval far longer than the test: only close() can charge.
        AdmissionController controller = controller(server.uri(), AdmissionMode.BATCHED, TIMEOUT,
                Duration.ofMinutes(1), 1);
        AdmissionPolicy rule = oneBucket(SLOW, 100);
        assertThat(admitted(controller, "k", rule, 10)).isEqualTo(10);
        assertThat(shared("k", rule)).as("nothing charged yet").isCloseTo(100, within(0.01));

        controller.close();
        assertThat(shared("k", rule)).isCloseTo(90, within(0.01));
        controller.close(); // idempotent: nothing charged twice
        assertThat(shared("k", rule)).isCloseTo(90, within(0.01));
        assertThat(admissionLog(Level.WARN, "")).isEmpty();
    }

    @Test
    void credentialsNeverShowInTheDescriptionOrTheLogs() throws Exception {
        String password = "s3cret-Pa55word";
        server = RedisServer.builder().user("shaper", password).start();
        assertThat(server.uri()).contains(password);

        AdmissionController controller = controller(AdmissionMode.STRICT, TIMEOUT);
        AdmissionPolicy rule = oneBucket(SLOW, 10);
        assertThat(controller.backend()).as("authenticated").isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(admitted(controller, "k", rule, 1)).isEqualTo(1);
        server.kill();
        controller.admit(key("k"), rule, 1);
        server.restart();
        awaitBackOnRedis(controller);

        // A wrong password: Redis refuses the connection; the refusal is logged, the password is not.
        String wrong = "wr0ng-Pa55word";
        AdmissionController refused = controller("redis://shaper:" + wrong + "@127.0.0.1:" + server.port(),
                AdmissionMode.STRICT, TIMEOUT);
        assertThat(refused.backend()).isEqualTo(AdmissionController.Backend.LOCAL);

        try (RedisLimits buckets = new RedisLimits(server.uri(), TIMEOUT, PING)) {
            assertThat(buckets.description()).isEqualTo("redis://127.0.0.1:" + server.port());
        }
        List<ILoggingEvent> events = logs.events();
        assertThat(events).isNotEmpty();
        assertThat(admissionLog(Level.INFO, "redis://127.0.0.1:" + server.port())).isNotEmpty();
        for (ILoggingEvent event : events) {
            String text = event.getFormattedMessage() + throwableText(event.getThrowableProxy());
            assertThat(text).doesNotContain(password).doesNotContain(wrong);
        }
    }

    @Test
    void tlsUrisParseAndAreDescribedWithoutCredentials() {
        try (RedisLimits tls = new RedisLimits("rediss://user:t0p-secret@127.0.0.1:6390/2", TIMEOUT,
                PING)) {
            assertThat(tls.description()).isEqualTo("rediss://127.0.0.1:6390/2");
        }
        try (RedisLimits passwordOnly = new RedisLimits("rediss://:t0p-secret@redis.example:6380",
                TIMEOUT, PING)) {
            assertThat(passwordOnly.description()).isEqualTo("rediss://redis.example:6380");
        }
    }

    private static String throwableText(IThrowableProxy proxy) {
        StringBuilder text = new StringBuilder();
        for (IThrowableProxy p = proxy; p != null; p = p.getCause()) {
            text.append('\n').append(p.getClassName()).append(": ").append(p.getMessage());
        }
        return text.toString();
    }
}
