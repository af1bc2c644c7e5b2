package dev.shaper.internals.wiring;

import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.cluster.InputPartitionWatch;
import dev.shaper.internals.cluster.LiveInstanceCounter;
import dev.shaper.internals.cluster.OutputTopicsWatch;
import dev.shaper.internals.http.OperationsServer;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.rules.RulesTopicReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one shaper instance runs beside Kafka Streams, each part set as the start makes it (null until then, or for
 * good when the settings need none), and closed in one order once Kafka Streams is, or when the start fails halfway.
 */
public final class InstanceParts implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InstanceParts.class);

    /** Reads the rules topic ({@code shaper.rules.topic}). */
    public RulesTopicReader rulesReader;
    /** Watches the input topic's partition count. */
    public InputPartitionWatch inputWatch;
    /** Watches the output and rejected topics. */
    public OutputTopicsWatch outputWatch;
    /** The admission, with rules that set admission limits. */
    public AdmissionController admission;
    /** Counts the application's live instances, for the admission's local fallback. */
    public LiveInstanceCounter instances;
    /** The total rate's share of this instance, its leases and closed loop; never null once made. */
    public CapacityWiring.Capacity capacity;
    /** The instance's one Redis client, admission's and the capacity's. */
    public RedisClients.Client redis;
    /** The instance's meters. */
    public ShaperMetrics metrics;
    /** The operations HTTP server. */
    public OperationsServer http;

    /**
     * Closes the parts: the rules topic's reader, the topics' watches, the admission (its last batched sync), the
     * instance counter, the capacity's leases, the Redis client both used, the metrics and, last, the HTTP server,
     * which answers "not ready" until then. A part that fails to close is logged, and the others still close.
     */
    @Override
    public void close() {
        closeQuietly(rulesReader);
        closeQuietly(inputWatch);
        closeQuietly(outputWatch);
        closeQuietly(admission);
        closeQuietly(instances);
        closeQuietly(capacity);
        closeQuietly(redis); // after both its users
        closeQuietly(metrics);
        closeQuietly(http);
    }

    private static void closeQuietly(AutoCloseable resource) {
        if (resource != null) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("while closing {}: {}", resource.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
