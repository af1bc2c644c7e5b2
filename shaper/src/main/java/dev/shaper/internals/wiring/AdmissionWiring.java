package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.RedisLimits;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.scheduling.DaemonThreadScheduler;
import java.util.function.IntSupplier;

/** Builds an instance's admission from its settings. */
public final class AdmissionWiring {

    private AdmissionWiring() {
    }

    /**
     * The instance's one Redis client, from the {@code shaper.redis.*} settings, on which admission and the capacity
     * open their connections; null without {@code shaper.redis.uri}. The caller closes it once both are closed.
     */
    public static RedisClients.Client redisClient(ShaperConfig config) {
        String uri = config.redisUri();
        return uri == null ? null : RedisClients.create(uri, config.redisTimeout(),
                RedisClients.reconnectDelayFor(config.redisPingInterval()), config.redisTlsCaFile());
    }

    /**
     * The admission of one instance, not started: on Redis when {@code shaper.redis.uri} is set, local buckets
     * otherwise; its background work on one daemon thread.
     *
     * @param redis           the instance's Redis client ({@link #redisClient}), or null without
     *                        {@code shaper.redis.uri}
     * @param liveInstances   counts the live instances of the application, for the local fallback's share
     * @param inputPartitions the most instances that can be admitting at once: the count until one has succeeded
     */
    public static AdmissionController forConfig(ShaperConfig config, RedisClients.Client redis,
                                                IntSupplier liveInstances, int inputPartitions) {
        RedisLimits buckets = redis == null ? null : new RedisLimits(redis);
        return new AdmissionController(buckets, config.admissionMode(), config.admissionSyncInterval(),
                config.redisPingInterval(), liveInstances, inputPartitions,
                new DaemonThreadScheduler("shaper-admission"), System::nanoTime);
    }
}
