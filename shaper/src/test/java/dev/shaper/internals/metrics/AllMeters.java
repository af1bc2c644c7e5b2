package dev.shaper.internals.metrics;

import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.capacity.CapacityCoordinator;
import dev.shaper.internals.capacity.CapacityLeases;
import dev.shaper.internals.capacity.CapacityPool;
import dev.shaper.internals.capacity.LeaseCadence;
import dev.shaper.internals.capacity.PriorityDemand;
import dev.shaper.internals.capacity.adaptive.AdaptiveCapacity;
import dev.shaper.internals.capacity.adaptive.AdaptiveSettings;
import dev.shaper.internals.capacity.adaptive.CapacityBounds;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.capacity.adaptive.ControllerKind;
import dev.shaper.internals.capacity.adaptive.FeedbackListener;
import dev.shaper.testsupport.ManualScheduler;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * Every meter the shaper registers, as in a running instance with admission on Redis, the total rate leased and
 * the closed loop on: what dashboards and alerts may query ({@link #scrape()}). Kafka Streams' own meters come
 * with a {@code KafkaStreams} instance ({@link ShaperMetrics#bindStreams}), which a caller binds to
 * {@link #metrics()} if it needs them.
 */
public final class AllMeters implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ShaperMetrics metrics = new ShaperMetrics(registry, System::currentTimeMillis);
    private final AdmissionController admission = new AdmissionController(null, AdmissionMode.BATCHED,
            Duration.ofMillis(100), Duration.ofSeconds(1), () -> 1, new ManualScheduler(), System::nanoTime);

    public AllMeters() {
        // As the application binds them: the JVM's memory pools first, then the shaper's own
        new JvmMemoryMetrics().bindTo(registry);
        metrics.bindAdmission(admission);
        metrics.shadowed(); // the meters of rules in shadow, registered at their first decision
        CapacityPool pool = new CapacityPool(400, 8);
        metrics.bindCapacity(pool);
        metrics.bindCapacityCoordinator(new CapacityCoordinator(pool, new CapacityLeases() {
            @Override
            public Lease renew(PriorityDemand demand, Collection<Integer> partitions, double held, Duration lease) {
                return new Lease(400, 400, 1, demand.total(), false);
            }

            @Override
            public String description() {
                return "redis://test:6379";
            }

            @Override
            public void close() {
            }
        }, new LeaseCadence(Duration.ofSeconds(1), 500, 8), new ManualScheduler(), System::nanoTime));
        AdaptiveCapacity adaptive = AdaptiveCapacity.start(new AdaptiveSettings(new CapacityBounds(40, 400), 100,
                0.01, 1_000, 5_000, 30_000, ControllerKind.AIMD), System.currentTimeMillis(), false);
        metrics.bindClosedLoop(new ClosedLoop(adaptive, null, capacity -> { }, new ManualScheduler(),
                System::currentTimeMillis, "test"), new FeedbackListener(Map.of("bootstrap.servers", "unused:9092"),
                "feedback", Duration.ofSeconds(5), (writer, report, receivedAtMs) -> { }, System::currentTimeMillis));
        // Meters registered on first use
        metrics.redisCall("take", 1_000);
        metrics.registerTaskCounts(1, 100).released(System.currentTimeMillis(), 5, 100);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public ShaperMetrics metrics() {
        return metrics;
    }

    /** The registry in Prometheus' text format, as {@code /metrics} answers. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        admission.close();
    }
}
