package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.DaemonThreadScheduler;
import dev.shaper.internals.admission.RedisTokenBuckets;
import dev.shaper.internals.capacity.CapacityCoordinator;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.RedisCapacityLeases;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/** Builds an instance's share of the total rate from its settings. */
public final class CapacityWiring {

    /**
     * The instance's share of the total rate.
     *
     * @param pool        what the instance's tasks share; null when each task has a fixed share or there is no cap
     * @param coordinator leases the pool's rate through Redis; null without Redis or without a pool
     */
    public record Capacity(CapacityPool pool, CapacityCoordinator coordinator) implements AutoCloseable {

        /** Starts the leases' renewals, if any. */
        public void start() {
            if (coordinator != null) {
                coordinator.start();
            }
        }

        @Override
        public void close() {
            if (coordinator != null) {
                coordinator.close();
            }
        }
    }

    private CapacityWiring() {
    }

    /**
     * The share of {@code config}'s total rate, not started: a pool in scope {@code cluster}, leased through Redis
     * when {@code shaper.redis.uri} is set.
     */
    public static Capacity forConfig(ShaperConfig config, String applicationId, int inputPartitions) {
        if (!(config.totalRate() > 0) || !config.totalRatePooled()) {
            return new Capacity(null, null);
        }
        CapacityPool pool = new CapacityPool(config.totalRate(), inputPartitions);
        String uri = config.redisUri();
        if (uri == null) {
            return new Capacity(pool, null);
        }
        RedisCapacityLeases leases = new RedisCapacityLeases(uri, config.redisTimeout(),
                RedisTokenBuckets.reconnectDelayFor(config.redisPingInterval()), config.redisTlsCaFile(),
                new RedisCapacityLeases.Terms(applicationId, instanceId(), pool::totalRate, inputPartitions,
                        config.capacityLease()));
        return new Capacity(pool, new CapacityCoordinator(pool, leases, config.capacityLease(),
                new DaemonThreadScheduler("shaper-capacity"), System::nanoTime));
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
