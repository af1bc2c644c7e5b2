package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The admission controller on a real redis-server (its own, one per test) with policies other than one token bucket:
 * several limits and the window algorithms, in strict and batched modes, with a key whose Redis state is unusable,
 * and across an outage. As in {@link AdmissionControllerIT}, the background work runs on a {@link ManualScheduler}
 * whose clock is the local state's; Redis's clock is real, so the windows here are an hour or a day long (waiting
 * out the rare hour about to end) and token buckets refill at a rate negligible during a test.
 */
class AdmissionLimitsControllerIT {

    private static final Duration PING = Duration.ofMillis(200);
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration SYNC = Duration.ofMillis(50);
    private static final long HOUR_MS = 3_600_000;
    private static final long DAY_MS = 24 * HOUR_MS;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private RedisServer server;
    private RedisClient directClient;
    private StatefulRedisConnection<String, String> direct;

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
    }

    private AdmissionController controller(AdmissionMode mode) {
        if (server == null) {
            server = RedisServer.start();
        }
        RedisLimits redis = new RedisLimits(server.uri(), TIMEOUT, RedisClients.reconnectDelayFor(PING));
        AdmissionController controller = new AdmissionController(redis, mode, SYNC, PING, () -> 1, scheduler,
                scheduler::nanoTime);
        resources.add(controller);
        controller.start();
        scheduler.runDue();
        return controller;
    }

    private StatefulRedisConnection<String, String> direct() {
        if (direct == null) {
            directClient = RedisClient.create(server.uri());
            direct = directClient.connect();
        }
        return direct;
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static AdmissionPolicy hourAndDay(AdmissionAlgorithm algorithm, double perHour, double perDay) {
        return new AdmissionPolicy(algorithm, List.of(new AdmissionLimit(perHour, HOUR_MS, perHour),
                new AdmissionLimit(perDay, DAY_MS, perDay)));
    }

    private int admitted(AdmissionController controller, String key, AdmissionPolicy policy, int times) {
        int allowed = 0;
        for (int i = 0; i < times; i++) {
            if (controller.admit(key(key), policy, 1, null).allowed()) {
                allowed++;
            }
        }
        return allowed;
    }

    /** Redis's clock, in microseconds. */
    private long redisMicros() {
        List<String> time = direct().sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    /** The count in Redis of {@code key}'s current window of {@code windowMs} (0 if none). */
    private long count(String key, long windowMs) {
        String value = direct().sync().get("shaper:win:{" + key + "}:" + windowMs + ":"
                + Math.floorDiv(redisMicros(), windowMs * 1000));
        return value == null ? 0 : Long.parseLong(value);
    }

    /** Returns once at least a minute is left of the current hour on Redis's clock. */
    private void awaitRoomInTheHour() throws InterruptedException {
        long span = HOUR_MS * 1000;
        long left = span - Math.floorMod(redisMicros(), span);
        if (left < 60_000_000) {
            Thread.sleep(left / 1000 + 2);
        }
    }

    @ParameterizedTest
    @EnumSource(AdmissionMode.class)
    void bothModesAdmitWhatEveryWindowLimitAllowsAndChargeEachOnce(AdmissionMode mode) throws Exception {
        // Given: 10 per hour and 8 per day, fixed windows, and 2 already counted today by another service (with the
        // same script, on the same counter)
        AdmissionController controller = controller(mode);
        awaitRoomInTheHour();
        AdmissionPolicy policy = hourAndDay(AdmissionAlgorithm.FIXED_WINDOW, 10, 8);
        direct().sync().eval(AdmissionAlgorithm.FIXED_WINDOW.script().source(), ScriptOutputType.MULTI,
                new String[] {"shaper:win:{k}"}, "100", String.valueOf(DAY_MS), "2", "charge");
        // When: 10 records arrive (and the batched mode syncs)
        int admitted = admitted(controller, "k", policy, 10);
        scheduler.advance(SYNC);
        // Then: strict admits what the day has left, 6; batched what its fresh mirror allows, 8, two too many (the
        // batched mode's bound), charged at the sync
        assertThat(admitted).isEqualTo(mode == AdmissionMode.STRICT ? 6 : 8);
        // And: each limit's counter in Redis holds what was admitted, once
        assertThat(count("k", HOUR_MS)).isEqualTo(admitted);
        assertThat(count("k", DAY_MS)).isEqualTo(admitted + 2);
        // And: the next record waits for the day's end: the day's limit binds, not the hour's
        AdmissionDecision refused = controller.admit(key("k"), policy, 1, null);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(1);
        long dayLeftMs = (DAY_MS * 1000 - Math.floorMod(redisMicros(), DAY_MS * 1000)) / 1000;
        assertThat(refused.retryAfterMs()).isBetween(dayLeftMs - 5_000, dayLeftMs + 5_000);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
    }

    @ParameterizedTest
    @EnumSource(AdmissionMode.class)
    void severalTokenBucketsAreTakenAllOrNoneInBothModes(AdmissionMode mode) {
        AdmissionController controller = controller(mode);
        AdmissionPolicy policy = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, List.of(
                new AdmissionLimit(0.001, 1000, 5), new AdmissionLimit(0.001, 1000, 3)));
        assertThat(admitted(controller, "tb", policy, 6)).isEqualTo(3);
        scheduler.advance(SYNC);
        var hash = direct().sync().hgetall("shaper:tb:{tb}");
        assertThat(Double.parseDouble(hash.get("tokens"))).as("charged 3, not 6").isCloseTo(2, within(0.01));
        assertThat(Double.parseDouble(hash.get("tokens.2"))).isCloseTo(0, within(0.01));
    }

    @ParameterizedTest
    @EnumSource(AdmissionMode.class)
    void aKeyWhoseCountersAreUnusableIsDecidedLocallyWithoutLeavingRedis(AdmissionMode mode) throws Exception {
        AdmissionController controller = controller(mode);
        awaitRoomInTheHour();
        // Given: something else wrote a hash where a counter of "bad" lives
        direct().sync().hset("shaper:win:{bad}:" + HOUR_MS + ":" + Math.floorDiv(redisMicros(), HOUR_MS * 1000),
                "not", "a count");
        AdmissionPolicy policy = hourAndDay(AdmissionAlgorithm.SLIDING_WINDOW, 2, 100);
        // When: records of "bad" and of a healthy key arrive
        int bad = admitted(controller, "bad", policy, 5);
        int good = admitted(controller, "good", policy, 5);
        scheduler.advance(SYNC);
        // Then: both are limited (bad by a local state), and admission stayed on Redis
        assertThat(bad).isEqualTo(2);
        assertThat(good).isEqualTo(2);
        assertThat(count("good", HOUR_MS)).isEqualTo(2);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(controller.switchesToLocal()).isZero();
    }

    @ParameterizedTest
    @EnumSource(AdmissionMode.class)
    void anOutageCarriesAWindowsCountToTheLocalStateAndBack(AdmissionMode mode) throws Exception {
        // Given: 10 per hour, 6 of them admitted on Redis
        AdmissionController controller = controller(mode);
        awaitRoomInTheHour();
        AdmissionPolicy policy = new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW,
                List.of(new AdmissionLimit(10, HOUR_MS, 10)));
        assertThat(admitted(controller, "k", policy, 6)).isEqualTo(6);
        scheduler.advance(SYNC);
        assertThat(count("k", HOUR_MS)).isEqualTo(6);
        // When: Redis dies (nothing persisted) and records keep coming
        server.kill();
        int during = admitted(controller, "k", policy, 10);
        scheduler.advance(SYNC); // strict found Redis gone at the first record, the batched sync finds it now
        during += admitted(controller, "k", policy, 10);
        // Then: the local state started from the 6 Redis had counted (strict: its last answer; batched: the
        // mirror, which admitted 4 more before its sync failed): 4 more in all, not a fresh 10
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(during).isEqualTo(4);
        // When: Redis comes back, empty
        server.restart();
        Await.until(() -> "still " + controller.backend(), Duration.ofSeconds(10), () -> {
            scheduler.advance(PING);
            return controller.backend() == AdmissionController.Backend.REDIS;
        });
        // Then: the hand-back raised the hour's count to what the instance counted, so the hour stays full
        assertThat(count("k", HOUR_MS)).isEqualTo(10);
        assertThat(admitted(controller, "k", policy, 3)).isZero();
    }
}
