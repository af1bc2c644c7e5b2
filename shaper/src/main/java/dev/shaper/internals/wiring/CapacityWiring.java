package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.capacity.CapacityCoordinator;
import dev.shaper.internals.capacity.CapacityHolding;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.LeaseCadence;
import dev.shaper.internals.capacity.RedisCapacityLeases;
import dev.shaper.internals.capacity.RestoreListener;
import dev.shaper.internals.capacity.adaptive.AdaptiveCapacity;
import dev.shaper.internals.capacity.adaptive.AdaptiveSettings;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.capacity.adaptive.FeedbackListener;
import dev.shaper.internals.capacity.adaptive.RedisCapacityDecisions;
import dev.shaper.internals.capacity.adaptive.StartupWarmUp;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.scheduling.DaemonThreadScheduler;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/** Builds an instance's share of the total rate from its settings, and the closed loop that moves it. */
public final class CapacityWiring {

    /** How many feedback timeouts the decision kept in Redis outlives the last instance that decided. */
    static final int DECISION_KEPT_TIMEOUTS = 3;

    /**
     * The instance's share of the total rate.
     *
     * @param pool        what the instance's tasks share; null when each task has a fixed share or there is no cap
     * @param coordinator leases the pool's rate through Redis; null without Redis or without a pool
     * @param loop        moves the pool's total rate with the writers' feedback; null unless the capacity is adaptive
     * @param feedback    reads the writers' reports for the loop, started already; null without the loop
     * @param warmUp      starts the loop's warm-up when the instance's start restores queued records; null without
     */
    public record Capacity(CapacityPool pool, CapacityCoordinator coordinator, ClosedLoop loop,
                           FeedbackListener feedback, StartupWarmUp warmUp) implements AutoCloseable {

        /** Starts the leases' renewals and the loop's decisions, if any. */
        public void start() {
            if (coordinator != null) {
                coordinator.start();
            }
            if (loop != null) {
                loop.start();
            }
        }

        /** What the instance holds of the capacity, for {@code /capacity}; null without a pool. */
        public Supplier<CapacityHolding> holding() {
            return pool == null ? null
                    : () -> CapacityHolding.of(pool, coordinator, System.currentTimeMillis());
        }

        /** What the tasks tell of the queues they open. */
        public RestoreListener restores() {
            return warmUp != null ? warmUp : RestoreListener.NONE;
        }

        /** Kafka Streams runs: restores from now on are rebalances, not the instance's start. */
        public void instanceRunning() {
            if (warmUp != null) {
                warmUp.instanceRunning();
            }
        }

        @Override
        public void close() {
            if (feedback != null) {
                feedback.close();
            }
            if (loop != null) {
                loop.close();
            }
            if (coordinator != null) {
                coordinator.close();
            }
        }
    }

    private CapacityWiring() {
    }

    /**
     * The share of {@code config}'s total rate: a pool in scope {@code cluster}, leased through Redis when
     * {@code shaper.redis.uri} is set, and with {@code shaper.capacity.adaptive} the closed loop that moves it. Not
     * started, but for the feedback listener, which reads from now on so that a missing feedback topic fails here.
     *
     * @param clientSettings the settings to reach the cluster (bootstrap servers, security), for the feedback listener
     */
    public static Capacity forConfig(ShaperConfig config, RedisClients.Client redis, String applicationId,
                                     int inputPartitions, Map<String, ?> clientSettings) {
        if (!(config.totalRate() > 0) || !config.totalRatePooled()) {
            return new Capacity(null, null, null, null, null);
        }
        AdaptiveSettings adaptive = config.adaptiveCapacity();
        String instanceId = instanceId();
        FeedbackListener feedback = null;
        try {
            AdaptiveCapacity core = null;
            if (adaptive != null) {
                core = AdaptiveCapacity.start(adaptive, System.currentTimeMillis(), false);
                feedback = new FeedbackListener(clientSettings, config.feedbackTopic(),
                        Duration.ofMillis(adaptive.feedbackTimeoutMs()), core::onReport, System::currentTimeMillis);
                feedback.start();
            }
            CapacityPool pool = new CapacityPool(config.totalRate(), inputPartitions);
            CapacityCoordinator coordinator = null;
            if (redis != null) {
                LeaseCadence cadence = new LeaseCadence(config.capacityLease(), config.capacityRenewalsPerSecond(),
                        inputPartitions);
                RedisCapacityLeases leases = new RedisCapacityLeases(redis, new RedisCapacityLeases.Terms(
                        applicationId, instanceId, pool::totalRate, inputPartitions, cadence.longestLease()));
                coordinator = new CapacityCoordinator(pool, leases, cadence,
                        new DaemonThreadScheduler("shaper-capacity"), System::nanoTime);
            }
            if (core == null) {
                return new Capacity(pool, coordinator, null, null, null);
            }
            RedisCapacityDecisions decisions = redis == null ? null : new RedisCapacityDecisions(redis,
                    new RedisCapacityDecisions.Terms(applicationId, instanceId, adaptive.adjustMs(),
                            DECISION_KEPT_TIMEOUTS * adaptive.feedbackTimeoutMs()));
            // A fall of C lowers the grant at once, a rise reaches it at the next renewal: no burst of renewals at
            // every decision of every instance
            ClosedLoop loop = new ClosedLoop(core, decisions, pool::setTotalRate,
                    new DaemonThreadScheduler("shaper-capacity-loop"), System::currentTimeMillis, instanceId);
            return new Capacity(pool, coordinator, loop, feedback, new StartupWarmUp(loop));
        } catch (RuntimeException e) {
            if (feedback != null) {
                feedback.close(); // its thread reads already
            }
            throw e;
        }
    }

    /** This process's name in the leases table: the host's name, for people, and a random part, for uniqueness. */
    static String instanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
