package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.capacity.CapacityLeaseScript;
import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.capacity.adaptive.CapacityDecisions.Agreed;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.testsupport.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The decision script against a real redis-server (its own, on a free port), through {@link RedisCapacityDecisions}.
 * Redis's clock cannot be moved: where a test needs the decision in force to be an interval old, it rewrites the
 * decision's time into the past instead of waiting; the interval is a minute, so no decision falls due on its own.
 */
class CapacityDecisionScriptIT {

    private static final long ADJUST_MS = 60_000;
    private static final long KEEP_MS = 300_000;
    private static final long WARMUP_AT_MS = 1_764_000_000_000L;
    /** The instances' clock in these tests (Redis keeps its own): two seconds after the warm-up's start. */
    private static final long NOW_MS = WARMUP_AT_MS + 2_000;
    private static final AtomicInteger APPS = new AtomicInteger();

    private static RedisServer server;
    private final String application = "decision-test-" + APPS.incrementAndGet();
    private final String key = CapacityDecisionScript.keyName(application);
    private final List<RedisCapacityDecisions> opened = new ArrayList<>();
    /** Each simulated instance's own Redis client, as each shaper instance has one. */
    private final List<RedisClients.Client> clients = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (server != null) {
            server.close();
        }
    }

    private RedisClients.Client client() {
        RedisClients.Client client = RedisClients.create(server.uri(), Duration.ofSeconds(2), Duration.ofMillis(100),
                null);
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeDecisions() {
        opened.forEach(RedisCapacityDecisions::close);
        clients.forEach(RedisClients.Client::close);
    }

    private RedisCapacityDecisions instance(String id) {
        RedisCapacityDecisions decisions = new RedisCapacityDecisions(client(),
                new RedisCapacityDecisions.Terms(application, id, ADJUST_MS, KEEP_MS));
        opened.add(decisions);
        return decisions;
    }

    private static CapacityDecision proposal(double capacity, Reason reason) {
        return new CapacityDecision(capacity, reason, 200, 0);
    }

    /** Moves the decision in force {@code ms} into the past, as if that much of Redis's time had gone by. */
    private void age(long ms) {
        long at = Long.parseLong(server.call("HGET", key, "at"));
        server.call("HSET", key, "at", Long.toString(at - ms));
    }

    @Test
    void shouldMakeTheFirstProposalTheDecisionWhenNoneIsKept() throws Exception {
        // Given: no decision kept for the application
        long before = System.currentTimeMillis();

        // When: an instance proposes
        Agreed agreed = instance("a").propose(proposal(280, Reason.LATENCY), 0, NOW_MS);

        // Then: its proposal is the decision, timed by Redis's clock (the same machine's here)
        assertThat(agreed.capacity()).isEqualTo(280);
        assertThat(agreed.reason()).isEqualTo(Reason.LATENCY);
        assertThat(agreed.decidedBy()).isEqualTo("a");
        assertThat(agreed.ours()).isTrue();
        assertThat(agreed.decidedAtMs()).isBetween(before - 1_000, System.currentTimeMillis() + 1_000);
        assertThat(agreed.warmUpStartMs()).isZero();
    }

    @Test
    void shouldAnswerTheDecisionInForceWhenItIsLessThanOneIntervalOld() throws Exception {
        // Given: a decided 280/s
        Agreed first = instance("a").propose(proposal(280, Reason.LATENCY), 0, NOW_MS);

        // When: b proposes something else within the interval, and a again
        Agreed toB = instance("b").propose(proposal(400, Reason.HEALTHY), 0, NOW_MS);
        Agreed toA = instance("a").propose(proposal(196, Reason.LATENCY), 0, NOW_MS);

        // Then: both are told a's first decision, unchanged
        assertThat(List.of(toB, toA)).allSatisfy(agreed -> {
            assertThat(agreed.capacity()).isEqualTo(280);
            assertThat(agreed.reason()).isEqualTo(Reason.LATENCY);
            assertThat(agreed.decidedBy()).isEqualTo("a");
            assertThat(agreed.decidedAtMs()).isEqualTo(first.decidedAtMs());
            assertThat(agreed.ours()).isFalse();
        });
    }

    @Test
    void shouldMakeTheNextProposalTheDecisionOnceTheOneInForceIsAnIntervalOld() throws Exception {
        // Given: a decided 280/s one interval ago
        RedisCapacityDecisions a = instance("a");
        RedisCapacityDecisions b = instance("b");
        a.propose(proposal(280, Reason.LATENCY), 0, NOW_MS);
        age(ADJUST_MS);

        // When: b proposes, and then a within the new interval
        Agreed toB = b.propose(proposal(300, Reason.HEALTHY), 0, NOW_MS);
        Agreed toA = a.propose(proposal(196, Reason.LATENCY), 0, NOW_MS);

        // Then: b's proposal is the decision, and a is told it
        assertThat(toB.ours()).isTrue();
        assertThat(toB.capacity()).isEqualTo(300);
        assertThat(toA.capacity()).isEqualTo(300);
        assertThat(toA.reason()).isEqualTo(Reason.HEALTHY);
        assertThat(toA.decidedBy()).isEqualTo("b");
        assertThat(toA.ours()).isFalse();
    }

    @Test
    void shouldKeepTheDecisionInForceWhenItIsJustUnderOneIntervalOld() throws Exception {
        // Given: a decision a second short of an interval old
        instance("a").propose(proposal(280, Reason.LATENCY), 0, NOW_MS);
        age(ADJUST_MS - 1_000);

        // When: b proposes
        Agreed toB = instance("b").propose(proposal(300, Reason.HEALTHY), 0, NOW_MS);

        // Then: the decision stands
        assertThat(toB.ours()).isFalse();
        assertThat(toB.capacity()).isEqualTo(280);
    }

    @Test
    void shouldTreatADecisionFromTheFutureAsDueWhenRedissClockWentBack() throws Exception {
        // Given: a decision timed an hour ahead of Redis's clock
        instance("a").propose(proposal(280, Reason.LATENCY), 0, NOW_MS);
        age(-3_600_000);

        // When: b proposes
        Agreed toB = instance("b").propose(proposal(300, Reason.HEALTHY), 0, NOW_MS);

        // Then: the proposal replaces it, rather than waiting an hour for the clock to catch up
        assertThat(toB.ours()).isTrue();
        assertThat(toB.capacity()).isEqualTo(300);
    }

    @Test
    void shouldExpireTheDecisionWhenNoInstanceDecidedForTheKeepTime() throws Exception {
        // When: a decides
        instance("a").propose(proposal(280, Reason.LATENCY), 0, NOW_MS);

        // Then: the key expires within the keep time, never at once and never never
        long ttlMs = Long.parseLong(server.call("PTTL", key));
        assertThat(ttlMs).isPositive().isLessThanOrEqualTo(KEEP_MS);

        // And when: the key is gone (no instance decided for the keep time)
        server.call("DEL", key);

        // Then: the next proposal is the decision again
        assertThat(instance("b").propose(proposal(90, Reason.ERRORS), 0, NOW_MS).ours()).isTrue();
    }

    @Test
    void shouldTellEveryInstanceTheNewestWarmUpAtOnceWhenOneStartsWithinTheInterval() throws Exception {
        // Given: a decided 400/s
        RedisCapacityDecisions a = instance("a");
        RedisCapacityDecisions b = instance("b");
        a.propose(proposal(400, Reason.HEALTHY), 0, NOW_MS);

        // When: b starts a warm-up within the interval; then a reports an older one
        Agreed toB = b.propose(proposal(400, Reason.HEALTHY), WARMUP_AT_MS, NOW_MS);
        Agreed toA = a.propose(proposal(400, Reason.HEALTHY), WARMUP_AT_MS - 5_000, NOW_MS);

        // Then: the decision stands, but both are told the newer warm-up's start: b exactly (its age went and came
        // back in one call), a to the milliseconds Redis's clock moved between the two calls
        assertThat(toB.ours()).isFalse();
        assertThat(toB.warmUpStartMs()).isEqualTo(WARMUP_AT_MS);
        assertThat(toA.warmUpStartMs()).isCloseTo(WARMUP_AT_MS, within(1_000L));
    }

    @Test
    void shouldStartAWarmUpWhenItStartedWhateverTheClockOfTheInstanceThatStartedIt() throws Exception {
        // Given: a's clock is an hour ahead of b's
        RedisCapacityDecisions a = instance("a");
        RedisCapacityDecisions b = instance("b");
        long aheadMs = 3_600_000;

        // When: a starts a warm-up now, by its clock
        a.propose(proposal(400, Reason.HEALTHY), NOW_MS + aheadMs, NOW_MS + aheadMs);
        Agreed toB = b.propose(proposal(400, Reason.HEALTHY), 0, NOW_MS);

        // Then: b is told it started now by b's clock, not an hour from now
        assertThat(toB.warmUpStartMs()).isCloseTo(NOW_MS, within(1_000L));
        assertThat(server.call("HGET", key, "warmupat")).isNotNull();
    }

    @Test
    void shouldRunAgainWhenRedisForgotTheScript() throws Exception {
        // Given: an instance that ran the script, and Redis that then forgot it
        RedisCapacityDecisions a = instance("a");
        a.propose(proposal(400, Reason.HEALTHY), 0, NOW_MS);
        assertThat(server.call("SCRIPT", "FLUSH")).isEqualTo("OK");

        // When/Then: the next proposal still gets an answer (the script is loaded again)
        assertThat(a.propose(proposal(300, Reason.LATENCY), 0, NOW_MS).capacity()).isEqualTo(400);
    }

    @Test
    void shouldUseTheLeaseTablesHashTagWhenNamingTheDecisionsKey() {
        // The hash tag alone picks a key's slot: the same tag, the same slot
        assertThat(CapacityDecisionScript.keyName("app")).isEqualTo("shaper:capdecision:{app}");
        assertThat(CapacityLeaseScript.tableName("app")).endsWith("{app}");
    }
}
