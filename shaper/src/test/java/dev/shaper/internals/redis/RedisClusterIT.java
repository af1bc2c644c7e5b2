package dev.shaper.internals.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionController.Backend;
import dev.shaper.internals.admission.AdmissionDecision;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.RedisLimits;
import dev.shaper.internals.capacity.CapacityLeaseScript;
import dev.shaper.internals.capacity.CapacityLeases;
import dev.shaper.internals.capacity.PriorityDemand;
import dev.shaper.internals.capacity.RedisCapacityLeases;
import dev.shaper.internals.capacity.adaptive.CapacityDecision;
import dev.shaper.internals.capacity.adaptive.CapacityDecisions;
import dev.shaper.internals.capacity.adaptive.RedisCapacityDecisions;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.RedisCluster;
import dev.shaper.testsupport.RedisServer;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.event.AskRedirectionEvent;
import io.lettuce.core.cluster.event.MovedRedirectionEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission (strict and batched, a token bucket and a fixed window, each with two limits on one key), the capacity's
 * lease and the closed loop's decision on a real Redis Cluster of three masters with a replica each
 * ({@link RedisCluster}: redis-server processes), with keys on every master; then a master is killed (SIGKILL) and
 * the cluster promotes its replica by itself. The shaper's client must follow: admission back on Redis soon after
 * the failover, the surviving masters' counters as they were, the lease and the decision found on the promoted node.
 *
 * <p>The admission's background work runs on {@link ManualScheduler}s (a clock the test moves); Redis's clock is real,
 * so the limits refill at a rate negligible during the test (a token per 1,000 s) and the windows are 100 and 365
 * days long.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIT {

    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterIT.class);

    /** Short, for a failover within seconds: the cluster counts a node failed after this long without an answer. */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(2000);
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    private static final Duration PING = Duration.ofMillis(200);
    private static final Duration SYNC = Duration.ofMillis(100);
    /** The most a failover may keep admission off Redis here: the failover takes about twice the node timeout. */
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(20);
    private static final long DAY_MS = 86_400_000L;
    private static final double CAPACITY = 400;
    /** How long a lease stands: longer than the test, so that no lease ends within it. */
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final List<Integer> PARTITIONS = List.of(0, 1, 2, 3, 4, 5, 6, 7);

    /** Two token buckets: bursts 5 and 3, refilling a token per 1,000 s. */
    private static final AdmissionPolicy BUCKETS = new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, List.of(
            new AdmissionLimit(0.001, 1000, 5), new AdmissionLimit(0.001, 1000, 3)));
    /** Two fixed windows: 6 per 365 days and 4 per 100 days. */
    private static final AdmissionPolicy WINDOWS = new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW, List.of(
            new AdmissionLimit(6, 365 * DAY_MS, 6), new AdmissionLimit(4, 100 * DAY_MS, 4)));

    private static RedisCluster cluster;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1, NODE_TIMEOUT);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void closeResources() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closedAfter(T resource) {
        resources.add(resource);
        return resource;
    }

    /** An instance's Redis client, as the shaper makes it from {@code shaper.redis.uri}. */
    private RedisClients.Client client() {
        return closedAfter(RedisClients.create(cluster.uri(), TIMEOUT, RedisClients.reconnectDelayFor(PING), null));
    }

    /** Admission in {@code mode} on {@code client}, its background work on {@code scheduler}, started. */
    private AdmissionController admission(AdmissionMode mode, RedisClients.Client client, ManualScheduler scheduler) {
        AdmissionController controller = closedAfter(new AdmissionController(new RedisLimits(client), mode, SYNC,
                PING, () -> 1, scheduler, scheduler::nanoTime));
        controller.start();
        scheduler.runDue();
        assertThat(controller.backend()).isEqualTo(Backend.REDIS);
        return controller;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A key whose slot (its hash tag is the key itself) {@code master} serves, named {@code <prefix>-<n>}. */
    private static String keyOn(RedisServer master, String prefix) {
        List<RedisServer> bySlot = cluster.mastersBySlot();
        return IntStream.range(0, 100_000).mapToObj(n -> prefix + "-" + n)
                .filter(key -> bySlot.get(SlotHash.getSlot(key)).port() == master.port()).findFirst()
                .orElseThrow();
    }

    private static int admitted(AdmissionController admission, String key, AdmissionPolicy policy, int offered) {
        int allowed = 0;
        for (int i = 0; i < offered; i++) {
            allowed += admission.admit(bytes(key), policy, 1).allowed() ? 1 : 0;
        }
        return allowed;
    }

    /** A token bucket's balance in Redis, read from the node that serves its slot. */
    private static double tokens(String key, String field) {
        return tokens(cluster::masterOf, key, field);
    }

    /** A token bucket's balance in Redis, read from the node {@code masterOf} its slot. */
    private static double tokens(IntFunction<RedisServer> masterOf, String key, String field) {
        String name = "shaper:tb:{" + key + "}";
        return Double.parseDouble(masterOf.apply(SlotHash.getSlot(name)).call("HGET", name, field));
    }

    /** The name of a fixed window's counter now (Redis's clock is this machine's). */
    private static String windowCounter(String key, long windowMs) {
        return "shaper:win:{" + key + "}:" + windowMs + ":" + System.currentTimeMillis() / windowMs;
    }

    /** A fixed window's count in Redis, read from the node that serves its slot. */
    private static long count(String key, long windowMs) {
        return count(cluster::masterOf, key, windowMs);
    }

    /** A fixed window's count in Redis, read from the node {@code masterOf} its slot. */
    private static long count(IntFunction<RedisServer> masterOf, String key, long windowMs) {
        String name = windowCounter(key, windowMs);
        String count = masterOf.apply(SlotHash.getSlot(name)).call("GET", name);
        return count == null ? 0 : Long.parseLong(count);
    }

    /** Whether a renewal of {@code leases} succeeds now. */
    private static boolean renews(RedisCapacityLeases leases) {
        try {
            leases.renew(demand(100), PARTITIONS, 0, LEASE);
            return true;
        } catch (RedisUnavailableException e) {
            return false;
        }
    }

    private static PriorityDemand demand(double unitsPerSecond) {
        return PriorityDemand.ofHighest(unitsPerSecond);
    }

    /** The application's lease table as if it had run a while: its learning period over, in the table's slot. */
    private static void settledLeaseTable(String application) {
        RedisServer master = cluster.masterOf(SlotHash.getSlot(CapacityLeaseScript.tableName(application)));
        master.call("HSET", CapacityLeaseScript.tableName(application), "~epoch", "1", "~partitions",
                Integer.toString(PARTITIONS.size()));
    }

    @Test
    @Order(1)
    void admissionLeasesAndDecisionsRunOnKeysSpreadOverEveryMaster() throws Exception {
        // Given: one instance in strict mode, its capacity on the same client, and another in batched mode
        List<RedisServer> masters = cluster.masters();
        assertThat(masters).hasSize(3);
        RedisClients.Client client = client();
        AdmissionController strict = admission(AdmissionMode.STRICT, client, new ManualScheduler());
        ManualScheduler batchedClock = new ManualScheduler();
        AdmissionController batched = admission(AdmissionMode.BATCHED, client(), batchedClock);

        for (RedisServer master : masters) {
            // When: each master's keys take more than their limits allow, strictly
            String bucket = keyOn(master, "strict-tb");
            String window = keyOn(master, "strict-win");
            // Then: all or none of the limits, the tighter one binding, counted in the master's slot
            assertThat(admitted(strict, bucket, BUCKETS, 5)).isEqualTo(3);
            AdmissionDecision refused = strict.admit(bytes(bucket), BUCKETS, 1);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.limit()).isEqualTo(1);
            assertThat(tokens(bucket, "tokens")).isCloseTo(2, within(0.01));
            assertThat(tokens(bucket, "tokens.2")).isCloseTo(0, within(0.01));
            assertThat(admitted(strict, window, WINDOWS, 6)).isEqualTo(4);
            assertThat(count(window, 365 * DAY_MS)).isEqualTo(4);
            assertThat(count(window, 100 * DAY_MS)).isEqualTo(4);
        }

        // When: the batched instance admits on 300 keys of each algorithm, spread over every slot's master, and syncs
        List<Integer> keys = IntStream.range(0, 300).boxed().toList();
        List<RedisServer> bySlot = cluster.mastersBySlot();
        Set<Integer> mastersTouched = new HashSet<>();
        for (int n : keys) {
            mastersTouched.add(bySlot.get(SlotHash.getSlot("batched-tb-" + n)).port());
            assertThat(admitted(batched, "batched-tb-" + n, BUCKETS, 2)).isEqualTo(2);
            assertThat(admitted(batched, "batched-win-" + n, WINDOWS, 1)).isEqualTo(1);
        }
        batchedClock.advance(SYNC);

        // Then: one sync charged every key on its own master, once
        assertThat(mastersTouched).hasSize(3);
        assertThat(batched.backend()).isEqualTo(Backend.REDIS);
        assertThat(batched.switchesToLocal()).isZero();
        for (int n : keys) {
            assertThat(tokens(bySlot::get, "batched-tb-" + n, "tokens")).as("key %d", n).isCloseTo(3, within(0.01));
            assertThat(tokens(bySlot::get, "batched-tb-" + n, "tokens.2")).as("key %d", n)
                    .isCloseTo(1, within(0.01));
            assertThat(count(bySlot::get, "batched-win-" + n, 365 * DAY_MS)).as("key %d", n).isEqualTo(1);
            assertThat(count(bySlot::get, "batched-win-" + n, 100 * DAY_MS)).as("key %d", n).isEqualTo(1);
        }

        // And: the capacity's lease and the closed loop's decision work on the strict instance's client
        String application = "cluster-app-1";
        settledLeaseTable(application);
        RedisCapacityLeases leases = closedAfter(new RedisCapacityLeases(client,
                new RedisCapacityLeases.Terms(application, "a", () -> CAPACITY, PARTITIONS.size(), LEASE)));
        CapacityLeases.Lease lease = leases.renew(demand(100), PARTITIONS, 0, LEASE);
        assertThat(lease.grant()).isEqualTo(CAPACITY);
        assertThat(lease.instances()).isEqualTo(1);
        RedisCapacityDecisions decisions = closedAfter(new RedisCapacityDecisions(client,
                new RedisCapacityDecisions.Terms(application, "a", 60_000, 300_000)));
        CapacityDecisions.Agreed agreed = decisions.propose(new CapacityDecision(300, CapacityDecision.Reason.HEALTHY,
                100, 0), 0, System.currentTimeMillis());
        assertThat(agreed.capacity()).isEqualTo(300);
        assertThat(agreed.ours()).isTrue();
        assertThat(strict.switchesToLocal()).isZero();
    }

    @Test
    @Order(2)
    void scriptsFlushedFromEveryMasterAreLoadedAgainNodeByNode() {
        // Given: both modes on Redis, then every master loses its scripts (as a restarted or promoted node has none)
        AdmissionController strict = admission(AdmissionMode.STRICT, client(), new ManualScheduler());
        ManualScheduler batchedClock = new ManualScheduler();
        AdmissionController batched = admission(AdmissionMode.BATCHED, client(), batchedClock);
        List<String> keys = cluster.masters().stream().flatMap(master -> IntStream.range(0, 20)
                .mapToObj(n -> keyOn(master, "flushed-" + n))).toList();
        for (RedisServer master : cluster.masters()) {
            assertThat(master.call("SCRIPT", "FLUSH")).isEqualTo("OK");
        }

        // When: one sync charges keys on every master, and the strict mode decides keys on every master
        keys.forEach(key -> admitted(batched, key, WINDOWS, 1));
        batchedClock.advance(SYNC);
        for (RedisServer master : cluster.masters()) {
            assertThat(admitted(strict, keyOn(master, "flushed-strict"), BUCKETS, 1)).isEqualTo(1);
        }

        // Then: each node that answered NOSCRIPT was sent the script again; nothing went local
        for (String key : keys) {
            assertThat(count(key, 365 * DAY_MS)).as(key).isEqualTo(1);
        }
        assertThat(batched.switchesToLocal()).isZero();
        assertThat(strict.switchesToLocal()).isZero();
    }

    @Test
    @Order(3)
    void aSlotMovedToAnotherMasterIsFollowedThroughMovedAndAskWithoutLeavingRedis() {
        // Given: both modes on Redis, each admission key admitted twice; the keys "mv}..." share the hash tag "mv" (an
        // admission key's tag ends at its first '}'), so one slot, and the keys "ask}..." another
        RedisClients.Client strictClient = client();
        RedisClients.Client batchedClient = client();
        AdmissionController strict = admission(AdmissionMode.STRICT, strictClient, new ManualScheduler());
        ManualScheduler batchedClock = new ManualScheduler();
        AdmissionController batched = admission(AdmissionMode.BATCHED, batchedClient, batchedClock);
        List<String> redirections = new CopyOnWriteArrayList<>();
        for (RedisClients.Client client : List.of(strictClient, batchedClient)) {
            closedAfter(client.resources().eventBus().get()
                    .filter(e -> e instanceof AskRedirectionEvent || e instanceof MovedRedirectionEvent)
                    .subscribe(e -> redirections.add(e.getClass().getSimpleName()))::dispose);
        }
        for (String tag : List.of("mv", "ask")) {
            assertThat(admitted(strict, tag + "}strict", BUCKETS, 2)).isEqualTo(2);
            assertThat(admitted(strict, tag + "}strict-win", WINDOWS, 2)).isEqualTo(2);
            assertThat(admitted(batched, tag + "}batched-win", WINDOWS, 2)).isEqualTo(2);
        }
        batchedClock.advance(SYNC);

        // When: a resharding moves the slot of "mv" to another master, keys and all, before the clients hear of it
        int moved = SlotHash.getSlot("mv");
        RedisServer to = otherMaster(moved);
        cluster.migrateKeys(moved, to, stateOf("mv"));
        cluster.assignSlot(moved, to);
        // Then: both modes follow the old master's MOVED to the state where it is now, as it was
        assertThat(admitted(strict, "mv}strict", BUCKETS, 2)).isEqualTo(1);
        assertThat(admitted(strict, "mv}strict-win", WINDOWS, 3)).isEqualTo(2);
        assertThat(admitted(batched, "mv}batched-win", WINDOWS, 1)).isEqualTo(1);
        batchedClock.advance(SYNC);
        assertThat(count("mv}batched-win", 100 * DAY_MS)).isEqualTo(3);
        // (the client's events arrive on a thread of their own)
        Await.until(() -> "a MOVED among " + redirections, Duration.ofSeconds(5),
                () -> redirections.contains("MovedRedirectionEvent"));

        // When: the slot of "ask" is being moved: its keys moved, the slot still the old master's, which answers ASK
        int asked = SlotHash.getSlot("ask");
        RedisServer next = otherMaster(asked);
        cluster.migrateKeys(asked, next, stateOf("ask"));
        // Then: both modes follow the ASK to the new master
        assertThat(admitted(strict, "ask}strict", BUCKETS, 2)).isEqualTo(1);
        assertThat(admitted(batched, "ask}batched-win", WINDOWS, 1)).isEqualTo(1);
        batchedClock.advance(SYNC);
        Await.until(() -> "an ASK among " + redirections, Duration.ofSeconds(5),
                () -> redirections.contains("AskRedirectionEvent"));
        cluster.assignSlot(asked, next);
        assertThat(count("ask}batched-win", 100 * DAY_MS)).isEqualTo(3);

        // And: no redirection was taken for Redis being down
        assertThat(strict.switchesToLocal()).isZero();
        assertThat(batched.switchesToLocal()).isZero();
    }

    /** A master other than the one that serves {@code slot}. */
    private static RedisServer otherMaster(int slot) {
        int from = cluster.masterOf(slot).port();
        return cluster.masters().stream().filter(m -> m.port() != from).findFirst().orElseThrow();
    }

    /** The Redis keys of the admission keys {@code <tag>}strict, {@code ...strict-win} and {@code ...batched-win}. */
    private static String[] stateOf(String tag) {
        List<String> keys = new ArrayList<>(List.of("shaper:tb:{" + tag + "}strict}"));
        for (String key : List.of(tag + "}strict-win", tag + "}batched-win")) {
            keys.add(windowCounter(key, 365 * DAY_MS));
            keys.add(windowCounter(key, 100 * DAY_MS));
        }
        return keys.toArray(String[]::new);
    }

    @Test
    @Order(4)
    void aKilledMasterIsFollowedToItsPromotedReplicaAndTheOtherMastersKeepTheirCounters() throws Exception {
        // Given: an application whose lease table and decision live on the master to be killed
        String application = "cluster-app-3";
        int applicationSlot = SlotHash.getSlot(CapacityLeaseScript.tableName(application));
        RedisServer victim = cluster.masterOf(applicationSlot);
        RedisServer replica = cluster.replicaOf(victim);
        List<RedisServer> survivors = cluster.masters().stream().filter(m -> m.port() != victim.port()).toList();
        assertThat(survivors).hasSize(2);
        settledLeaseTable(application);

        // And: a strict instance (with its capacity on the same client) and a batched one, with keys on every master
        RedisClients.Client client = client();
        ManualScheduler strictClock = new ManualScheduler();
        AdmissionController strict = admission(AdmissionMode.STRICT, client, strictClock);
        ManualScheduler batchedClock = new ManualScheduler();
        AdmissionController batched = admission(AdmissionMode.BATCHED, client(), batchedClock);
        RedisCapacityLeases leases = closedAfter(new RedisCapacityLeases(client,
                new RedisCapacityLeases.Terms(application, "a", () -> CAPACITY, PARTITIONS.size(), LEASE)));
        RedisCapacityDecisions decisions = closedAfter(new RedisCapacityDecisions(client,
                new RedisCapacityDecisions.Terms(application, "a", 60_000, 300_000)));
        // And: another application's instance leasing alone on a client of its own, which no admission pings
        String otherApplication = keyOn(victim, "cluster-app-other");
        settledLeaseTable(otherApplication);
        RedisCapacityLeases otherLeases = closedAfter(new RedisCapacityLeases(client(),
                new RedisCapacityLeases.Terms(otherApplication, "b", () -> CAPACITY, PARTITIONS.size(), LEASE)));
        assertThat(otherLeases.renew(demand(100), PARTITIONS, 0, LEASE).grant()).isEqualTo(CAPACITY);
        String victimsBucket = keyOn(victim, "failover-tb");
        String victimsBatchedKey = keyOn(victim, "failover-batched");
        for (RedisServer master : cluster.masters()) {
            assertThat(admitted(strict, keyOn(master, "failover-tb"), BUCKETS, 2)).isEqualTo(2);
            assertThat(admitted(strict, keyOn(master, "failover-win"), WINDOWS, 2)).isEqualTo(2);
            assertThat(admitted(batched, keyOn(master, "failover-batched"), WINDOWS, 2)).isEqualTo(2);
        }
        batchedClock.advance(SYNC);
        assertThat(leases.renew(demand(100), PARTITIONS, 0, LEASE).grant()).isEqualTo(CAPACITY);
        assertThat(decisions.propose(new CapacityDecision(300, CapacityDecision.Reason.HEALTHY, 100, 0), 0,
                System.currentTimeMillis()).capacity()).isEqualTo(300);

        // When: the master is killed, and records of its keys arrive
        victim.kill();
        long killedAt = System.nanoTime();
        admitted(strict, victimsBucket, BUCKETS, 1);
        admitted(batched, victimsBatchedKey, WINDOWS, 1);
        batchedClock.advance(SYNC);

        // Then: both go local at once
        assertThat(strict.backend()).isEqualTo(Backend.LOCAL);
        assertThat(batched.backend()).isEqualTo(Backend.LOCAL);

        // And: both are back on Redis once the replica has taken the master's place, pinging every ping interval,
        // and never took the failover for a refusal that only a configuration change would cure; the other
        // application's lease is renewed again too, its client following the failover on its own
        Set<String> failures = new LinkedHashSet<>(List.of(strict.redisFailure().describe(),
                batched.redisFailure().describe()));
        Set<RedisFailure.Kind> kinds = EnumSet.of(strict.redisFailure().kind(), batched.redisFailure().kind());
        long[] backAfterMs = new long[3];
        Await.until(() -> "strict " + strict.backend() + ", batched " + batched.backend() + ", lease renewed after "
                + backAfterMs[2] + " ms, failures " + failures, FAILOVER_BOUND, () -> {
                    strictClock.advance(PING);
                    batchedClock.advance(PING);
                    long ms = (System.nanoTime() - killedAt) / 1_000_000;
                    List<AdmissionController> both = List.of(strict, batched);
                    for (int i = 0; i < both.size(); i++) {
                        RedisFailure failure = both.get(i).redisFailure();
                        if (failure != null) {
                            failures.add(failure.describe());
                            kinds.add(failure.kind());
                        } else if (backAfterMs[i] == 0) {
                            backAfterMs[i] = ms;
                        }
                    }
                    if (backAfterMs[2] == 0 && renews(otherLeases)) {
                        backAfterMs[2] = ms;
                    }
                    return strict.backend() == Backend.REDIS && batched.backend() == Backend.REDIS
                            && backAfterMs[2] > 0;
                });
        LOG.info("After the master was killed: strict admission back on Redis in {} ms, batched in {} ms, another"
                + " client's lease renewed in {} ms; meanwhile: {}", backAfterMs[0], backAfterMs[1], backAfterMs[2],
                failures);
        assertThat(kinds).containsOnly(RedisFailure.Kind.UNREACHABLE);
        assertThat(cluster.masterOf(applicationSlot).port()).as("the replica promoted").isEqualTo(replica.port());

        // And: the surviving masters' counters are as they were: each key has what was left before the kill
        for (RedisServer master : survivors) {
            assertThat(admitted(strict, keyOn(master, "failover-tb"), BUCKETS, 3)).isEqualTo(1);
            assertThat(admitted(strict, keyOn(master, "failover-win"), WINDOWS, 3)).isEqualTo(2);
            String key = keyOn(master, "failover-batched");
            assertThat(admitted(batched, key, WINDOWS, 1)).isEqualTo(1);
            batchedClock.advance(SYNC);
            assertThat(count(key, 100 * DAY_MS)).as(key).isEqualTo(3);
        }
        assertThat(strict.backend()).isEqualTo(Backend.REDIS);
        assertThat(batched.backend()).isEqualTo(Backend.REDIS);

        // And: the lease table and the decision are found on the promoted replica, as the killed master left them
        CapacityLeases.Lease lease = leases.renew(demand(100), PARTITIONS, 0, LEASE);
        assertThat(lease.learning()).as("the table and its epoch kept").isFalse();
        assertThat(lease.grant()).isEqualTo(CAPACITY);
        assertThat(decisions.propose(new CapacityDecision(250, CapacityDecision.Reason.LATENCY, 900, 0), 0,
                System.currentTimeMillis()).capacity()).as("the decision in force kept").isEqualTo(300);
    }
}
