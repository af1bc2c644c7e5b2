package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.internals.redis.RedisClients;
import dev.shaper.testsupport.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease script against a real redis-server (its own, on a free port), through {@link RedisCapacityLeases}. Redis's
 * clock cannot be moved: where a test needs a lease to end, it rewrites the lease's expiry into the past instead of
 * waiting.
 */
class CapacityLeaseScriptIT {

    private static final Logger LOG = LoggerFactory.getLogger(CapacityLeaseScriptIT.class);
    private static final double CAPACITY = 400;
    private static final int PARTITIONS = 8;
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final AtomicInteger APPS = new AtomicInteger();

    private static RedisServer server;
    private final String application = "lease-test-" + APPS.incrementAndGet();
    private final List<RedisCapacityLeases> opened = new ArrayList<>();
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

    @org.junit.jupiter.api.AfterEach
    void closeLeases() {
        opened.forEach(RedisCapacityLeases::close);
        clients.forEach(RedisClients.Client::close);
    }

    /**
     * An instance of the application whose table already has an epoch past its learning period: most tests are about
     * the sharing, not about a table found missing.
     */
    private Leased instance(String id) {
        settled();
        return newInstance(id);
    }

    /** The application's table as if it had been running for a while: its epoch's learning period over. */
    private void settled() {
        server.call("HSET", CapacityLeaseScript.tableName(application), "~epoch", "1", "~partitions",
                Integer.toString(PARTITIONS));
    }

    private Leased newInstance(String id) {
        RedisCapacityLeases leases = new RedisCapacityLeases(client(),
                new RedisCapacityLeases.Terms(application, id, () -> CAPACITY, PARTITIONS, LEASE));
        opened.add(leases);
        return new Leased(leases);
    }

    /** One simulated instance's leases, renewed for {@link #LEASE}. */
    private record Leased(RedisCapacityLeases leases) {
        CapacityLeases.Lease renew(PriorityDemand demand, List<Integer> partitions, double held) throws Exception {
            return leases.renew(demand, partitions, held, LEASE);
        }
    }

    @Test
    void shouldGiveALoneInstanceRunningEveryPartitionTheWholeCapacity() throws Exception {
        CapacityLeases.Lease lease = instance("a").renew(d(100), List.of(0, 1, 2, 3, 4, 5, 6, 7), 0);

        // its demand, and what no one asks for as headroom
        assertThat(lease.grant()).isEqualTo(CAPACITY);
        assertThat(lease.available()).isEqualTo(CAPACITY);
        assertThat(lease.instances()).isEqualTo(1);
        assertThat(lease.totalDemand()).isEqualTo(100);
    }

    @Test
    void shouldShareByDemandMaxMinFairAndNeverGrantWhatTheOthersStillHold() throws Exception {
        // Given: a runs partitions 0-3 and asks for 300/s; b runs 4-7 and asks for 50/s
        Leased a = instance("a");
        Leased b = instance("b");
        List<Integer> first = List.of(0, 1, 2, 3);
        List<Integer> second = List.of(4, 5, 6, 7);

        // When: a renews alone, then b, then a again
        CapacityLeases.Lease aAlone = a.renew(d(300), first, 0);
        CapacityLeases.Lease bLease = b.renew(d(50), second, 0);
        CapacityLeases.Lease aLease = a.renew(d(300), first, 0);

        // Then: alone, a holds only its partitions' capacity (the other half is reserved for whoever runs them);
        // together, b gets its demand plus half of what is left over, a the rest
        assertThat(aAlone.grant()).isEqualTo(200);
        assertThat(bLease.grant()).isCloseTo(75, within(1e-9));
        assertThat(aLease.grant()).isCloseTo(325, within(1e-9));
        assertThat(aLease.grant() + bLease.grant()).isLessThanOrEqualTo(CAPACITY + 1e-9);

        // And: when b's demand grows, b gets no more than a leaves until a has renewed
        CapacityLeases.Lease bGrows = b.renew(d(400), second, 0);
        assertThat(bGrows.grant()).isCloseTo(CAPACITY - 325, within(1e-9));
        CapacityLeases.Lease aShrinks = a.renew(d(300), first, 0);
        CapacityLeases.Lease bGrown = b.renew(d(400), second, 0);
        assertThat(aShrinks.grant()).isCloseTo(200, within(1e-9));
        assertThat(bGrown.grant()).isCloseTo(200, within(1e-9));
    }

    @Test
    void shouldNeverGrantMoreThanTheCapacityWhateverTheOrderOfRenewals() throws Exception {
        // Given: three instances with changing demands and partitions, renewing in a random order
        Random random = new Random(42);
        List<Leased> instances = List.of(instance("a"), instance("b"), instance("c"));
        List<List<Integer>> partitions = List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7));
        Map<Integer, Double> held = new HashMap<>();

        for (int round = 0; round < 300; round++) {
            int i = random.nextInt(3);
            double demand = random.nextInt(4) == 0 ? 0 : random.nextDouble() * 500;
            CapacityLeases.Lease lease = instances.get(i).renew(d(demand), partitions.get(i), 0);
            held.put(i, lease.grant());

            // Then: the grants in use never add up to more than the capacity
            double inUse = held.values().stream().mapToDouble(Double::doubleValue).sum();
            assertThat(inUse).as("round %d", round).isLessThanOrEqualTo(CAPACITY + 1e-6);
        }
    }

    @Test
    void shouldConvergeToMaxMinFairSharesWithinTwoRenewals() throws Exception {
        // Given: demands of 50, 200 and 300 against 400
        List<Leased> instances = List.of(instance("a"), instance("b"), instance("c"));
        double[] demands = {50, 200, 300};
        List<List<Integer>> partitions = List.of(List.of(0, 1, 2), List.of(3, 4, 5), List.of(6, 7));
        double[] grants = new double[3];

        // When: each renews three times in turn
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 3; i++) {
                grants[i] = instances.get(i).renew(d(demands[i]), partitions.get(i), 0).grant();
            }
        }

        // Then: the small demand is met, the other two split the rest evenly
        assertThat(grants[0]).isCloseTo(50, within(1e-9));
        assertThat(grants[1]).isCloseTo(175, within(1e-9));
        assertThat(grants[2]).isCloseTo(175, within(1e-9));
    }

    @Test
    void shouldReturnADeadInstancesGrantOnceItsLeaseEndsAndReserveItsPartitionsStaticShares() throws Exception {
        // Given: a and b on leases, a busy
        Leased a = instance("a");
        Leased b = instance("b");
        a.renew(d(400), List.of(0, 1, 2, 3), 0);
        b.renew(d(400), List.of(4, 5, 6, 7), 0);
        a.renew(d(400), List.of(0, 1, 2, 3), 0);
        assertThat(b.renew(d(400), List.of(4, 5, 6, 7), 0).grant()).isCloseTo(200, within(1e-9));

        // When: a's lease ends without a renewal (a died, or cannot reach Redis)
        endLease("a");
        CapacityLeases.Lease alone = b.renew(d(400), List.of(4, 5, 6, 7), 0);

        // Then: a is gone from the table; b may take no more than its own partitions' static shares, since a, if
        // alive, may run partitions 0-3 at theirs; once b also runs a's partitions, it gets the whole capacity
        assertThat(alone.instances()).isEqualTo(1);
        assertThat(alone.grant()).isCloseTo(200, within(1e-9));
        assertThat(b.renew(d(400), List.of(0, 1, 2, 3, 4, 5, 6, 7), 0).grant()).isCloseTo(CAPACITY, within(1e-9));
    }

    @Test
    void shouldLoadTheScriptAgainAfterRedisForgotIt() throws Exception {
        Leased a = instance("a");
        a.renew(d(10), List.of(0), 0);
        server.call("SCRIPT", "FLUSH");

        assertThat(a.renew(d(10), List.of(0), 0).grant()).isCloseTo(CAPACITY / PARTITIONS, within(1e-9));
    }

    /** Moves {@code instance}'s lease expiry into the past, as if a lease had passed without a renewal. */
    private void endLease(String instance) {
        String table = CapacityLeaseScript.tableName(application);
        String value = server.call("HGET", table, instance);
        server.call("HSET", table, instance, "1" + value.substring(value.indexOf(' ')));
        server.call("ZADD", CapacityLeaseScript.expiriesName(application), "1", instance);
    }

    @Test
    void shouldGrantWhatInstancesAskAtPriorityZeroBeforeWhatAnyAsksAtALowerPriority() throws Exception {
        // Given: a asks 300/s at priority 0; b asks 50/s at priority 0 and 400/s at priority 1
        Leased a = instance("a");
        Leased b = instance("b");
        List<Integer> first = List.of(0, 1, 2, 3);
        List<Integer> second = List.of(4, 5, 6, 7);
        PriorityDemand interactive = PriorityDemand.of(new double[] {300});
        PriorityDemand mostlyBackfill = PriorityDemand.of(new double[] {50, 400});

        // When: both renew, then renew again once the other's grant is known
        a.renew(interactive, first, 0);
        b.renew(mostlyBackfill, second, 0);
        CapacityLeases.Lease aLease = a.renew(interactive, first, 0);
        CapacityLeases.Lease bLease = b.renew(mostlyBackfill, second, 0);

        // Then: the 350/s asked at priority 0 is served first; b's backfill gets the 50/s left
        assertThat(aLease.grant()).isCloseTo(300, within(1e-9));
        assertThat(bLease.grant()).isCloseTo(100, within(1e-9));
        assertThat(bLease.totalDemand()).isCloseTo(750, within(1e-9));
    }

    @Test
    void shouldReserveWhatAnInstanceMayStillHaveInUseBeyondItsNewGrant() throws Exception {
        // Given: a held 300/s over the last second, and now asks for 100/s; b asks for everything
        Leased a = instance("a");
        Leased b = instance("b");
        List<Integer> first = List.of(0, 1, 2, 3);
        List<Integer> second = List.of(4, 5, 6, 7);

        // When: a renews with its smaller demand, then b
        CapacityLeases.Lease aLease = a.renew(d(100), first, 300);
        CapacityLeases.Lease bLease = b.renew(d(400), second, 0);

        // Then: a is granted its demand and more headroom, but its entry reserves the 300 it may still release in
        // its last second: b gets only what that leaves
        assertThat(aLease.grant()).isLessThanOrEqualTo(300);
        assertThat(bLease.grant()).isCloseTo(CAPACITY - 300, within(1e-9));
        // And: once a's second has passed (it reports what it holds now), b gets the rest
        a.renew(d(100), first, aLease.grant());
        assertThat(b.renew(d(400), second, bLease.grant()).grant()).isCloseTo(CAPACITY - aLease.grant(),
                within(1e-9));
    }

    @Test
    void shouldGrantNoMoreThanWhatEachHoldsWhileItLearnsALostTableAgain() throws Exception {
        // Given: a and b share the capacity, 200/s each
        Leased a = instance("a");
        Leased b = instance("b");
        List<Integer> first = List.of(0, 1, 2, 3);
        List<Integer> second = List.of(4, 5, 6, 7);
        a.renew(d(400), first, 0);
        b.renew(d(400), second, 0);
        assertThat(a.renew(d(400), first, 200).grant()).isCloseTo(200, within(1e-9));

        // When: the table is lost (FLUSHALL), and a renews first, then b, then a newcomer c
        server.call("FLUSHALL");
        CapacityLeases.Lease aAfter = a.renew(d(400), first, 200);
        CapacityLeases.Lease bAfter = b.renew(d(400), second, 200);
        CapacityLeases.Lease cAfter = newInstance("c").renew(d(400), List.of(), 0);

        // Then: a learning period: nobody is granted more than it held, so the grants in use stay within C
        assertThat(aAfter.learning()).isTrue();
        assertThat(aAfter.grant()).isLessThanOrEqualTo(200);
        assertThat(bAfter.learning()).isTrue();
        assertThat(bAfter.grant()).isLessThanOrEqualTo(200);
        assertThat(cAfter.grant()).isZero();
        assertThat(aAfter.grant() + bAfter.grant()).isLessThanOrEqualTo(CAPACITY + 1e-9);
    }

    @ParameterizedTest
    @ValueSource(strings = {"table", "expiries", "demands"})
    void shouldLearnAgainWhenAnyOfItsKeysIsLostAloneAndKeepThemWithoutAnExpiry(String lost) throws Exception {
        // Given: a settled table, a and b on it
        Leased a = instance("a");
        Leased b = instance("b");
        a.renew(d(100), List.of(0, 1, 2, 3), 0);
        b.renew(d(100), List.of(4, 5, 6, 7), 0);
        Map<String, String> keys = Map.of("table", CapacityLeaseScript.tableName(application),
                "expiries", CapacityLeaseScript.expiriesName(application),
                "demands", CapacityLeaseScript.demandsName(application));
        for (String key : keys.values()) {
            assertThat(server.call("PTTL", key)).as(key).isEqualTo("-1");
        }

        // When: one key alone is deleted (evicted, or by hand), and both renew, a round of renewals
        server.call("DEL", keys.get(lost));
        CapacityLeases.Lease aAfter = a.renew(d(400), List.of(0, 1, 2, 3), 50);
        CapacityLeases.Lease bAfter = b.renew(d(400), List.of(4, 5, 6, 7), 50);

        // Then: within the round the table starts again: a learning period, each held to what it holds
        assertThat(aAfter.learning() || bAfter.learning()).isTrue();
        assertThat(bAfter.learning()).isTrue();
        assertThat(aAfter.grant()).isLessThanOrEqualTo(aAfter.learning() ? 50 : 200);
        assertThat(bAfter.grant()).isLessThanOrEqualTo(50);
    }

    @Test
    void shouldLearnTheTableAgainWhenThePartitionCountChanges() throws Exception {
        // Given: a settled table counted by 8 partitions, a on 0-3
        Leased a = instance("a");
        a.renew(d(100), List.of(0, 1, 2, 3), 0);

        // When: an instance that counts 16 partitions renews (the topic grew)
        RedisCapacityLeases wider = new RedisCapacityLeases(client(),
                new RedisCapacityLeases.Terms(application, "b", () -> CAPACITY, 16, LEASE));
        opened.add(wider);
        CapacityLeases.Lease lease = wider.renew(d(400), List.of(8, 9, 10, 11), 0, LEASE);

        // Then: the counts were made by another P: the table starts again, learnt before anyone gets more than it
        // holds, its partitions counted by the new P
        assertThat(lease.learning()).isTrue();
        assertThat(lease.grant()).isZero();
        assertThat(server.call("HGET", CapacityLeaseScript.tableName(application), "~partitions")).isEqualTo("16");
    }

    @Test
    void shouldLearnALostTableForTheLongestLeaseAnInstanceMayHoldNotTheCallersOwn() throws Exception {
        // Given: an instance whose own lease is 1 s, in an application whose instances may hold leases of 60 s
        RedisCapacityLeases leases = new RedisCapacityLeases(client(),
                new RedisCapacityLeases.Terms(application, "fresh", () -> CAPACITY, PARTITIONS, LEASE));
        opened.add(leases);

        // When: it finds the table lost (never written)
        CapacityLeases.Lease lease = leases.renew(d(100), List.of(0), 0, Duration.ofSeconds(1));

        // Then: the learning period lasts the 60 s, not its own second
        assertThat(lease.learning()).isTrue();
        long epoch = Long.parseLong(server.call("HGET", CapacityLeaseScript.tableName(application), "~epoch"));
        assertThat(epoch - System.currentTimeMillis()).isGreaterThan(LEASE.toMillis() - 5_000);
    }

    @Test
    void shouldCostNoMoreThanTwiceAsMuchWithFiveHundredOtherInstancesAsWithFive() throws Exception {
        // Given: two applications on one Redis, one with 5 other live instances, one with 500, ten partitions each
        Renewer few = instanceAmong(5);
        Renewer many = instanceAmong(500);

        // When: each renews in turns of 200 calls, Redis timing each turn's calls (INFO commandstats)
        List<Double> fewMicros = new ArrayList<>();
        List<Double> manyMicros = new ArrayList<>();
        for (int turn = 0; turn < 10; turn++) {
            fewMicros.add(microsPerRenewal(few));
            manyMicros.add(microsPerRenewal(many));
        }

        // Then: the median turn with 500 others costs Redis at most twice the median turn with 5
        double fewMedian = median(fewMicros);
        double manyMedian = median(manyMicros);
        LOG.info("Redis's time per renewal, median of 10 turns of 200: {} us with 5 others, {} us with 500",
                fewMedian, manyMedian);
        assertThat(manyMedian).as("us per renewal with 500 others %s against %s with 5", manyMicros, fewMicros)
                .isLessThanOrEqualTo(2 * fewMedian);
    }

    /** An instance's leases and the partitions it runs. */
    private record Renewer(Leased leases, List<Integer> partitions) {
    }

    /** An instance of a new application, whose table already holds {@code others} live instances. */
    private Renewer instanceAmong(int others) throws Exception {
        String app = "lease-cost-" + others + "-" + APPS.incrementAndGet();
        int partitions = (others + 1) * 10;
        server.call("HSET", CapacityLeaseScript.tableName(app), "~epoch", "1", "~partitions",
                Integer.toString(partitions));
        RedisClients.Client client = client();
        for (int i = 0; i < others; i++) {
            RedisCapacityLeases other = new RedisCapacityLeases(client,
                    new RedisCapacityLeases.Terms(app, "other-" + i, () -> CAPACITY, partitions, LEASE));
            opened.add(other);
            other.renew(d(1 + i % 7), tenPartitionsFrom(i * 10), 0, LEASE);
        }
        RedisCapacityLeases leases = new RedisCapacityLeases(client,
                new RedisCapacityLeases.Terms(app, "me", () -> CAPACITY, partitions, LEASE));
        opened.add(leases);
        Renewer renewer = new Renewer(new Leased(leases), tenPartitionsFrom(others * 10));
        renewer.leases().renew(d(5), renewer.partitions(), 0);
        return renewer;
    }

    private static List<Integer> tenPartitionsFrom(int first) {
        List<Integer> partitions = new ArrayList<>();
        for (int p = first; p < first + 10; p++) {
            partitions.add(p);
        }
        return partitions;
    }

    /** Redis's time per call over 200 renewals of {@code renewer}, in microseconds, from its command statistics. */
    private static double microsPerRenewal(Renewer renewer) throws Exception {
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 200; i++) {
            renewer.leases().renew(d(5 + i % 3), renewer.partitions(), 0);
        }
        Matcher stats = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+)")
                .matcher(server.call("INFO", "commandstats"));
        assertThat(stats.find()).as("EVALSHA in INFO commandstats").isTrue();
        return Double.parseDouble(stats.group(2)) / Double.parseDouble(stats.group(1));
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** {@code unitsPerSecond} at the highest priority. */
    private static PriorityDemand d(double unitsPerSecond) {
        return PriorityDemand.ofHighest(unitsPerSecond);
    }
}
