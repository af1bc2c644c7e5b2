package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.testsupport.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's switches between a lease and the static shares, on a clock the test advances, with leases the
 * test answers: the pool never holds more than the last grant while the others may still count it, and falls back
 * to the static shares only once that grant has surely lapsed.
 */
class CapacityCoordinatorTest {

    private static final Duration LEASE = Duration.ofMillis(1_000);
    /** The renewal budget: four renewals per second of each of up to 100 instances at the configured lease. */
    private static final int RENEWALS_PER_SECOND = 400;

    /** 400/s over 8 partitions: 50/s static share per partition. */
    private final CapacityPool pool = new CapacityPool(400, 8);
    private final ManualScheduler scheduler = new ManualScheduler();
    private final ScriptedLeases leases = new ScriptedLeases();
    private final CapacityCoordinator coordinator = new CapacityCoordinator(pool, leases,
            new LeaseCadence(LEASE, RENEWALS_PER_SECOND, 10_000), scheduler, scheduler::nanoTime);

    /** Leases that grant what the test sets, or fail while it says so, and record what they were told. */
    private static final class ScriptedLeases implements CapacityLeases {
        double grant = 300;
        int instances = 2;
        boolean down;
        RuntimeException bug;
        final List<Double> demands = new ArrayList<>();
        final List<List<Integer>> partitions = new ArrayList<>();
        final List<Duration> leases = new ArrayList<>();

        @Override
        public Lease renew(PriorityDemand demand, Collection<Integer> running, double held, Duration lease)
                throws RedisUnavailableException {
            demands.add(demand.total());
            partitions.add(List.copyOf(running));
            leases.add(lease);
            if (bug != null) {
                throw bug;
            }
            if (down) {
                throw new RedisUnavailableException("connection refused", null);
            }
            return new Lease(grant, 400, instances, 600, false);
        }

        @Override
        public String description() {
            return "redis://test:6379";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldShareTheLeasedGrantAndRenewItFourTimesPerLease() {
        // Given: two tasks in the pool (static shares: 100/s together)
        pool.join(3).update(d(500));
        pool.join(5).update(d(100));

        // When: the coordinator starts and a lease passes
        coordinator.start();
        scheduler.runDue();

        // Then: the pool holds the grant, not the static shares, and tells the leases its demand and partitions
        assertThat(pool.pooled()).isEqualTo(300);
        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.REDIS);
        assertThat(leases.demands.get(0)).isEqualTo(600);
        assertThat(leases.partitions.get(0)).containsExactlyInAnyOrder(3, 5);
        int before = leases.demands.size();
        scheduler.advance(LEASE);
        assertThat(leases.demands.size() - before).isEqualTo(4);
        assertThat(coordinator.switchesTo(CapacityCoordinator.Source.REDIS)).isEqualTo(1);
    }

    @Test
    void shouldHoldAtMostTheLastGrantUntilTwoLeasesAfterTheLastRenewalThenUseTheStaticShares() {
        // Given: four tasks (static shares 200/s) on a lease of 300/s
        for (int p = 0; p < 4; p++) {
            pool.join(p);
        }
        coordinator.start();
        scheduler.runDue();
        assertThat(pool.pooled()).isEqualTo(300);

        // When: Redis goes down
        leases.down = true;
        scheduler.advance(coordinator.renewalInterval());

        // Then: at once no more than the static shares or the grant, whichever is less; the switch is counted once
        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.LOCAL);
        assertThat(pool.pooled()).isEqualTo(200);
        assertThat(coordinator.switchesTo(CapacityCoordinator.Source.LOCAL)).isEqualTo(1);

        // And: with a grant below the static shares, the grant is what binds until two leases have passed
        leases.down = false;
        leases.grant = 120;
        scheduler.advance(coordinator.renewalInterval());
        assertThat(pool.pooled()).isEqualTo(120);
        leases.down = true;
        scheduler.advance(coordinator.renewalInterval());
        assertThat(pool.pooled()).isEqualTo(120);
        scheduler.advance(LEASE.multipliedBy(2).minus(coordinator.renewalInterval().multipliedBy(2)));
        assertThat(pool.pooled()).as("just before two leases since the last renewal").isEqualTo(120);
        scheduler.advance(coordinator.renewalInterval());
        assertThat(pool.pooled()).as("two leases after the last renewal: the static shares").isEqualTo(200);
        assertThat(coordinator.switchesTo(CapacityCoordinator.Source.LOCAL)).isEqualTo(2);
        assertThat(coordinator.failedRenewals()).isGreaterThan(0);
    }

    @Test
    void shouldReturnToTheLeaseAtTheFirstRenewalThatSucceeds() {
        pool.join(0);
        leases.down = true;
        coordinator.start();
        scheduler.runDue();
        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.LOCAL);
        assertThat(pool.pooled()).as("never leased: the static share").isEqualTo(50);

        leases.down = false;
        scheduler.advance(coordinator.renewalInterval());

        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.REDIS);
        assertThat(pool.pooled()).isEqualTo(300);
        assertThat(coordinator.switchesTo(CapacityCoordinator.Source.REDIS)).isEqualTo(1);
        assertThat(coordinator.switchesTo(CapacityCoordinator.Source.LOCAL)).isZero();
    }

    @Test
    void shouldRenewAtOnceWhenATaskJoinsOrLeaves() {
        coordinator.start();
        scheduler.runDue();
        int before = leases.partitions.size();

        CapacityPool.Member member = pool.join(7);
        scheduler.runDue();
        assertThat(leases.partitions.get(leases.partitions.size() - 1)).containsExactly(7);
        member.leave();
        scheduler.runDue();

        assertThat(leases.partitions.size() - before).isEqualTo(2);
        assertThat(leases.partitions.get(leases.partitions.size() - 1)).isEmpty();
    }

    @Test
    void shouldKeepRenewingAfterAnUnexpectedError() {
        pool.join(0);
        leases.bug = new IllegalStateException("unexpected capacity-lease reply");
        coordinator.start();
        scheduler.runDue();
        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.LOCAL);

        leases.bug = null;
        scheduler.advance(coordinator.renewalInterval());

        assertThat(coordinator.source()).isEqualTo(CapacityCoordinator.Source.REDIS);
    }

    @Test
    void shouldRenewOnceForTasksThatJoinAndLeaveBeforeTheRenewalRuns() {
        coordinator.start();
        scheduler.runDue();
        int before = leases.partitions.size();

        // When: a rebalance moves three tasks in and one out before the coordinator's thread runs
        pool.join(1);
        pool.join(2);
        CapacityPool.Member leaving = pool.join(3);
        leaving.leave();
        scheduler.runDue();

        // Then: one renewal reports them all
        assertThat(leases.partitions.size() - before).isEqualTo(1);
        assertThat(leases.partitions.get(leases.partitions.size() - 1)).containsExactlyInAnyOrder(1, 2);
    }

    @Test
    void shouldLengthenTheLeaseWithTheInstancesOnceTheirRenewalsWouldExceedTheBudget() {
        // Given: 1,000 live instances, against a budget of 400 renewals a second
        leases.instances = 1_000;
        pool.join(0);
        coordinator.start();
        scheduler.runDue();
        int before = leases.demands.size();

        // When: ten seconds pass
        scheduler.advance(Duration.ofSeconds(10));

        // Then: the lease is 1,000 x 4 / 400 = 10 s, renewed every 2.5 s: 4 renewals, not 40; each asks for 10 s
        assertThat(coordinator.renewalInterval()).isEqualTo(Duration.ofMillis(2_500));
        assertThat(leases.demands.size() - before).isEqualTo(4);
        assertThat(leases.leases.get(leases.leases.size() - 1)).isEqualTo(Duration.ofSeconds(10));

        // And: back to 10 instances, the configured lease and four renewals a second
        leases.instances = 10;
        scheduler.advance(Duration.ofMillis(2_500));
        int after = leases.demands.size();
        scheduler.advance(LEASE);
        assertThat(leases.demands.size() - after).isEqualTo(4);
        assertThat(leases.leases.get(leases.leases.size() - 1)).isEqualTo(LEASE);
    }

    @Test
    void shouldRenewWithinAQuarterOfTheLeaseItAskedForWhenTheInstancesCountedJump() {
        // Given: two live instances, so a lease of 1 s
        pool.join(0);
        coordinator.start();
        scheduler.runDue();
        assertThat(leases.leases.get(leases.leases.size() - 1)).isEqualTo(LEASE);

        // When: the next answer counts 1,000 instances (a 10 s lease from then on)
        leases.instances = 1_000;
        scheduler.advance(coordinator.renewalInterval());
        int before = leases.leases.size();

        // Then: the entry in Redis still stands for the 1 s asked for: the next renewal comes within a quarter of it,
        // and asks for the longer lease; only then do renewals space out
        scheduler.advance(LEASE.dividedBy(4));
        assertThat(leases.leases.size() - before).isEqualTo(1);
        assertThat(leases.leases.get(leases.leases.size() - 1)).isEqualTo(Duration.ofSeconds(10));
        scheduler.advance(Duration.ofMillis(2_000));
        assertThat(leases.leases.size() - before).isEqualTo(1);
        scheduler.advance(Duration.ofMillis(500));
        assertThat(leases.leases.size() - before).isEqualTo(2);
    }

    @Test
    void shouldNeverCountMoreInstancesThanInputPartitionsForTheLease() {
        LeaseCadence cadence = new LeaseCadence(LEASE, RENEWALS_PER_SECOND, 8);

        assertThat(cadence.lease(1_000)).isEqualTo(cadence.lease(8));
        assertThat(cadence.longestLease()).isEqualTo(LEASE);
        assertThat(new LeaseCadence(LEASE, RENEWALS_PER_SECOND, 10_000).longestLease())
                .isEqualTo(Duration.ofSeconds(100));
    }

    /** {@code unitsPerSecond} at the highest priority. */
    private static PriorityDemand d(double unitsPerSecond) {
        return PriorityDemand.ofHighest(unitsPerSecond);
    }
}
