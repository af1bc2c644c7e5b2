package dev.shaper.internals.wiring;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.RedisTokenBuckets;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.scheduling.DaemonThreadScheduler;
import java.time.Duration;
import java.util.function.IntSupplier;

/** Builds an instance's admission from its settings. */
public final class AdmissionWiring {

    private AdmissionWiring() {
    }

    /**
     * The admission of one instance, not started: on Redis when {@code shaper.redis.uri} is set, local buckets
     * otherwise; its background work on one daemon thread.
     *
     * @param liveInstances   counts the live instances of the application, for the local fallback's share
     * @param inputPartitions the most instances that can be admitting at once: the count until one has succeeded
     */
    public static AdmissionController forConfig(ShaperConfig config, IntSupplier liveInstances, int inputPartitions) {
        String uri = config.redisUri();
        Duration ping = config.redisPingInterval();
        RedisTokenBuckets redis = uri == null ? null
                : new RedisTokenBuckets(uri, config.redisTimeout(), RedisClients.reconnectDelayFor(ping),
                        config.redisTlsCaFile());
        return new AdmissionController(redis, config.admissionMode(), config.admissionSyncInterval(), ping,
                liveInstances, inputPartitions, new DaemonThreadScheduler("shaper-admission"), System::nanoTime);
    }
}
