package dev.shaper.internals.admission;

import static dev.shaper.internals.admission.AdmissionAlgorithms.oneBucket;
import ch.qos.logback.classic.Level;
import dev.shaper.internals.http.StreamsHealth;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.redis.RedisFailure;
import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CapturedLog;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.TestCertificates;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A Redis that answers but refuses the shaper (wrong or missing credentials, an untrusted TLS certificate) is
 * told apart from one that does not answer: named once in the log, in the metrics and in the health detail.
 * Each test starts its own redis-server (with a password or TLS) on free ports. The admission's pings run on a
 * {@link ManualScheduler} the tests advance; only what Redis or its client does on its own is awaited.
 */
class RedisRefusalIT {

    private static final Duration PING = Duration.ofMillis(100);
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private CapturedLog logs;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        logs = CapturedLog.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        logs.close();
    }

    private AdmissionController controller(String uri, Path trustedCas) {
        RedisLimits redis = new RedisLimits(uri, TIMEOUT, RedisClients.reconnectDelayFor(PING),
                trustedCas);
        AdmissionController controller = new AdmissionController(redis, AdmissionMode.STRICT, Duration.ofMillis(50),
                PING, () -> 1, scheduler, scheduler::nanoTime);
        resources.add(controller);
        controller.start();
        return controller;
    }

    private RedisServer track(RedisServer server) {
        resources.add(server);
        return server;
    }

    @Test
    void aWrongOrMissingPasswordIsNamedOnceInTheLogTheMetricsAndTheHealthDetail() throws Exception {
        RedisServer server = track(RedisServer.builder().password("right-Pa55").start());
        for (String uri : List.of("redis://:wr0ng-Pa55@127.0.0.1:" + server.port(),
                "redis://127.0.0.1:" + server.port())) {
            logs.clear();
            // When: the shaper starts with a password Redis refuses (WRONGPASS), or none (NOAUTH)
            AdmissionController controller = controller(uri, null);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new ShaperMetrics(registry, System::currentTimeMillis).bindAdmission(controller);
            StreamsHealth health = new StreamsHealth();
            health.watchAdmission(controller);
            // Let the monitor ping a few times: each is refused again, and none is logged again.
            scheduler.advance(PING.multipliedBy(4));

            // Then: local buckets, and the refusal is named, not taken for "does not answer"
            assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
            assertThat(controller.redisFailure().kind()).as(uri + ": " + controller.redisFailure())
                    .isEqualTo(RedisFailure.Kind.AUTHENTICATION);
            assertThat(admissionLog(Level.ERROR, "refuses the shaper's credentials")).as(uri).hasSize(1);
            assertThat(admissionLog(Level.ERROR, "")).hasSize(1);
            assertThat(admissionLog(Level.WARN, "")).isEmpty();
            assertThat(failureGauge(registry, "authentication")).isEqualTo(1);
            assertThat(failureGauge(registry, "unreachable")).isZero();
            assertThat(health.describe()).contains("admission on local buckets")
                    .contains("refuses the shaper's credentials").contains("shaper.redis.uri")
                    .doesNotContain("wr0ng-Pa55");
        }
        assertThat(String.join("\n", logs.messages())).doesNotContain("wr0ng-Pa55").doesNotContain("right-Pa55");
    }

    @Test
    void aPasswordChangedWhileRunningIsNamedWhenTheReconnectIsRefused() throws Exception {
        RedisServer server = track(RedisServer.builder().user("shaper", "old-Pa55").start());
        AdmissionController controller = controller(server.uri(), null);
        AdmissionPolicy rule = oneBucket(100, 100);
        assertThat(controller.admit(key("k"), rule, 1).allowed()).isTrue();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(controller.redisFailure()).isNull();

        // When: the password changes and Redis drops the shaper's connections (as a restart would)
        RedisClient adminClient = RedisClient.create(server.uri());
        resources.add(() -> adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        StatefulRedisConnection<String, String> admin = adminClient.connect();
        admin.sync().aclSetuser("shaper", AclSetuserArgs.Builder.on().resetpass().addPassword("new-Pa55")
                .allKeys().allChannels().allCommands());
        admin.sync().clientKill(KillArgs.Builder.user("shaper").skipme());
        controller.admit(key("k"), rule, 1);

        // Then: the reconnect's refusal is what the monitor reports, named once
        pingUntil("the refused reconnect is named", () -> controller.redisFailure() != null
                && controller.redisFailure().kind() == RedisFailure.Kind.AUTHENTICATION);
        scheduler.advance(PING.multipliedBy(4));
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(admissionLog(Level.ERROR, "refuses the shaper's credentials")).hasSize(1);

        // And: with the old password back, admission returns to Redis and the failure is gone
        admin.sync().aclSetuser("shaper", AclSetuserArgs.Builder.resetpass().addPassword("old-Pa55"));
        pingUntil("back on Redis", () -> controller.backend() == AdmissionController.Backend.REDIS);
        assertThat(controller.redisFailure()).isNull();
        assertThat(controller.healthDetail()).isNull();
    }

    @Test
    void anAclUserWithoutTheScriptCommandsIsNamedOnceAndAdmissionStaysLocalUntilTheAclIsFixed() throws Exception {
        // (A ping alone found such a Redis healthy: admission went back to Redis at every ping and out again at the
        // next record, logging both, once a second.)
        // Given: an ACL user that may ping but not run the scripts (the page's rules without evalsha and eval)
        RedisServer server = track(RedisServer.builder().user("shaper", "Pa55", "resetkeys", "~shaper:*",
                "resetchannels", "-@all", "+ping", "+info", "+time", "+hmget", "+hset", "+pexpire", "+pttl").start());
        AdmissionController controller = controller(server.uri(), null);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ShaperMetrics(registry, System::currentTimeMillis).bindAdmission(controller);
        AdmissionPolicy rule = oneBucket(100, 100);

        // When: records are admitted, and the monitor pings for a while
        for (int i = 0; i < 20; i++) {
            controller.admit(key("k" + (i % 3)), rule, 1);
            scheduler.advance(PING);
        }

        // Then: the refusal is named once, as a permission, and admission stays on local buckets
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(controller.redisFailure().kind()).isEqualTo(RedisFailure.Kind.PERMISSION);
        assertThat(admissionLog(Level.ERROR, "does not let the shaper's user run a command it needs")).hasSize(1);
        assertThat(admissionLog(Level.INFO, "back on Redis")).isEmpty();
        assertThat(failureGauge(registry, "permission")).isEqualTo(1);

        // And: once the ACL lets the user run the scripts, admission returns to Redis
        assertThat(server.call("ACL", "SETUSER", "shaper", "+evalsha", "+eval")).isEqualTo("OK");
        pingUntil("back on Redis", () -> controller.backend() == AdmissionController.Backend.REDIS);
        assertThat(controller.redisFailure()).isNull();
        assertThat(controller.admit(key("k0"), rule, 1).allowed()).isTrue();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
    }

    @Test
    void aUserWhoMayRunTheTokenBucketScriptButNotAWindowScriptsCommandsStaysLocalOnceAWindowRuleIsUsed()
            throws Exception {
        // (The ping ran the token-bucket script only: a user without the window scripts' GET and INCRBY went back to
        // Redis at every ping and out again at the next record of a window rule.)
        // Given: an ACL user with the token-bucket script's commands, not the window scripts' GET and INCRBY
        RedisServer server = track(RedisServer.builder().user("shaper", "Pa55", "resetkeys", "~shaper:*",
                "resetchannels", "-@all", "+ping", "+info", "+time", "+hmget", "+hset", "+pexpire", "+pttl",
                "+evalsha", "+eval").start());
        AdmissionController controller = controller(server.uri(), null);
        AdmissionPolicy window = AdmissionPolicy.of(AdmissionAlgorithm.FIXED_WINDOW, 100, 1000);
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);

        // When: records of a fixed-window rule are admitted, and the monitor pings for a while
        for (int i = 0; i < 20; i++) {
            controller.admit(key("k" + (i % 3)), window, 1, null);
            scheduler.advance(PING);
        }

        // Then: admission stays local, the permission named once, never "back on Redis"
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(controller.redisFailure().kind()).isEqualTo(RedisFailure.Kind.PERMISSION);
        assertThat(admissionLog(Level.INFO, "back on Redis")).isEmpty();

        // And: once the ACL allows the window scripts' commands, admission returns to Redis
        assertThat(server.call("ACL", "SETUSER", "shaper", "+get", "+incrby")).isEqualTo("OK");
        pingUntil("back on Redis", () -> controller.backend() == AdmissionController.Backend.REDIS);
        assertThat(controller.admit(key("k0"), window, 1, null).allowed()).isTrue();
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.REDIS);
    }

    @Test
    void anUntrustedTlsCertificateIsNamedAndTrustingItsCaConnects() throws Exception {
        // Given: a Redis serving TLS only, its certificate (naming 127.0.0.1) signed by a CA made for the test
        TestCertificates certificates = TestCertificates.create(dir.resolve("certs"));
        String uri = track(RedisServer.builder().tls(certificates).start()).uri();
        assertThat(uri).startsWith("rediss://");

        // When: the shaper does not trust that CA (the JVM's truststore does not hold it)
        AdmissionController untrusted = controller(uri, null);
        StreamsHealth health = new StreamsHealth();
        health.watchAdmission(untrusted);
        scheduler.advance(PING.multipliedBy(4));

        // Then: local buckets, and the TLS failure is named once, with what to do
        assertThat(untrusted.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(untrusted.redisFailure().kind()).isEqualTo(RedisFailure.Kind.TLS);
        assertThat(admissionLog(Level.ERROR, "fails the TLS handshake")).hasSize(1);
        assertThat(admissionLog(Level.ERROR, "fails the TLS handshake").get(0)).contains("certification path")
                .contains("shaper.redis.tls.ca.file");
        assertThat(health.describe()).contains("fails the TLS handshake");

        // And: with its CA trusted, the same URI is used
        AdmissionController trusted = controller(uri, certificates.caPem());
        assertThat(trusted.backend()).isEqualTo(AdmissionController.Backend.REDIS);
        assertThat(trusted.admit(key("k"), oneBucket(10, 10), 1).tokensLeft()).isCloseTo(9, within(0.5));
        assertThat(trusted.redisFailure()).isNull();
    }

    @Test
    void aRedisOutOfMemoryIsNamedAsSuchNotAsDownAndAdmissionReturnsOnceItHasRoom() throws Exception {
        // Given: a Redis at its maxmemory that evicts nothing, filled by another service
        RedisServer server = track(RedisServer.start());
        assertThat(server.call("CONFIG", "SET", "maxmemory-policy", "noeviction")).isEqualTo("OK");
        assertThat(server.call("SET", "other:filler", "x".repeat(1024 * 1024))).isEqualTo("OK");
        assertThat(server.call("CONFIG", "SET", "maxmemory", "1mb")).isEqualTo("OK");
        AdmissionController controller = controller(server.uri(), null);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ShaperMetrics(registry, System::currentTimeMillis).bindAdmission(controller);
        AdmissionPolicy rule = oneBucket(100, 100);

        // When: records are admitted, and the monitor pings for a while
        for (int i = 0; i < 10; i++) {
            controller.admit(key("k" + (i % 3)), rule, 1);
            scheduler.advance(PING);
        }

        // Then: admission is local, and why says so: out of memory, once, with what to do
        assertThat(controller.backend()).isEqualTo(AdmissionController.Backend.LOCAL);
        assertThat(controller.redisFailure().kind()).isEqualTo(RedisFailure.Kind.OUT_OF_MEMORY);
        assertThat(admissionLog(Level.ERROR, "is out of memory and refuses the shaper's writes")).hasSize(1);
        assertThat(admissionLog(Level.WARN, "does not answer")).isEmpty();
        assertThat(failureGauge(registry, "out_of_memory")).isEqualTo(1);
        assertThat(failureGauge(registry, "unreachable")).isZero();

        // And: once its maxmemory is raised, admission returns to Redis
        assertThat(server.call("CONFIG", "SET", "maxmemory", "0")).isEqualTo("OK");
        pingUntil("back on Redis", () -> controller.backend() == AdmissionController.Backend.REDIS);
        assertThat(failureGauge(registry, "out_of_memory")).isZero();
    }

    @Test
    void failuresAreClassifiedByTheirCauseChain() {
        Exception wrongPass = new RedisUnavailableException("Redis x: Unable to connect",
                new io.lettuce.core.RedisConnectionException("Unable to connect to 127.0.0.1:6379",
                        new io.lettuce.core.RedisCommandExecutionException("WRONGPASS invalid username-password pair")));
        assertThat(RedisFailure.of(wrongPass).kind()).isEqualTo(RedisFailure.Kind.AUTHENTICATION);
        assertThat(RedisFailure.of(wrongPass).detail()).startsWith("WRONGPASS");
        assertThat(RedisFailure.of(new io.lettuce.core.RedisCommandExecutionException(
                "NOPERM this user has no permissions to run the 'evalsha' command")).kind())
                .isEqualTo(RedisFailure.Kind.PERMISSION);
        Exception tls = new io.lettuce.core.RedisConnectionException("Unable to connect",
                new javax.net.ssl.SSLHandshakeException("PKIX path building failed"));
        assertThat(RedisFailure.of(tls).kind()).isEqualTo(RedisFailure.Kind.TLS);
        assertThat(RedisFailure.of(new io.lettuce.core.RedisCommandExecutionException(
                "OOM command not allowed when used memory > 'maxmemory'.")).kind())
                .isEqualTo(RedisFailure.Kind.OUT_OF_MEMORY);
        assertThat(RedisFailure.of(new io.lettuce.core.RedisCommandTimeoutException("Command timed out")).kind())
                .isEqualTo(RedisFailure.Kind.UNREACHABLE);
        assertThat(RedisFailure.of(new RedisUnavailableException("Redis x: no answer within PT0.05S", null)))
                .isEqualTo(new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis x: no answer within PT0.05S"));
    }

    private static double failureGauge(SimpleMeterRegistry registry, String kind) {
        return registry.get(ShaperMetrics.REDIS_FAILURE).tag("kind", kind).gauge().value();
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Polls until {@code condition} holds, which needs the Redis client to reconnect (or fail to), letting the
     * monitor ping once per poll: the scheduler's clock moves on by a ping interval each time.
     */
    private void pingUntil(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(10), () -> {
            scheduler.advance(PING);
            return condition.getAsBoolean();
        });
    }

    /** The admission's lines about this test's Redis (or none): other classes run beside it. */
    private List<String> admissionLog(Level level, String fragment) {
        return logs.lines(AdmissionController.class, level, fragment, resources.stream()
                .filter(r -> r instanceof RedisServer).map(r -> ((RedisServer) r).port()).toList());
    }
}
