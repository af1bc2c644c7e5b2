package dev.shaper.internals.http;

import dev.shaper.internals.capacity.CapacityHolding;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.capacity.adaptive.ClosedLoop;
import dev.shaper.internals.metrics.ScrapeOrder;
import dev.shaper.internals.rules.RuleBook;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper's HTTP server for operators, on Netty's HTTP codec ({@link NettyHttpServer}):
 * <ul>
 *   <li>{@code GET /metrics}: every meter in Prometheus' text format;</li>
 *   <li>{@code GET /health/live}: 200 unless Kafka Streams failed;</li>
 *   <li>{@code GET /health/ready}: 200 only while Kafka Streams is RUNNING with its stores restored;</li>
 *   <li>{@code GET /buckets/{key}}: one key's queue and rules (see {@link BucketsEndpoint});</li>
 *   <li>{@code GET /capacity}: the closed loop's capacity and why (see {@link CapacityEndpoint}).</li>
 * </ul>
 * Every failure is a JSON body with an {@code error} message and a 4xx or 5xx status, never a stack trace.
 */
public final class OperationsServer implements AutoCloseable {

    /** Prometheus' scrape path. */
    public static final String METRICS_PATH = "/metrics";
    /** The liveness probe's path: 200 unless Kafka Streams failed. */
    public static final String LIVE_PATH = "/health/live";
    /** The readiness probe's path: 200 once Kafka Streams runs with its stores restored, until a failure or a stop. */
    public static final String READY_PATH = "/health/ready";

    private static final Logger LOG = LoggerFactory.getLogger(OperationsServer.class);
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /**
     * Threads answering requests. More than BucketsEndpoint's concurrent forwards, so that health probes never
     * wait behind slow forwards (an orchestrator would restart a healthy instance).
     */
    private static final int WORKERS = 4;
    private static final int MAX_QUEUED_REQUESTS = 64;

    private final ExecutorService executor;
    private final PrometheusMeterRegistry registry;
    private final StreamsHealth health;
    private final BucketsEndpoint buckets;
    private final CapacityEndpoint capacity;
    private NettyHttpServer server; // set once, by start, before the first request

    private OperationsServer(ExecutorService executor, PrometheusMeterRegistry registry, StreamsHealth health,
                             BucketsEndpoint buckets, CapacityEndpoint capacity) {
        this.executor = executor;
        this.registry = registry;
        this.health = health;
        this.buckets = buckets;
        this.capacity = capacity;
    }

    /**
     * Binds {@code port} (0: any free port) and serves at once; health reports "not ready" until Kafka Streams
     * runs.
     *
     * @param self this instance's {@code application.server}, or null
     * @param inputPartitions the input topic's partition count
     * @param backlogs the local tasks' backlogs in front of the total rate
     * @param capacity the closed loop's status, or null when the capacity is fixed
     * @param holding  what the instance holds of the capacity, or null without a pool of the total rate
     * @throws BindException when the port is taken
     */
    public static OperationsServer start(int port, PrometheusMeterRegistry registry, StreamsHealth health,
                                         KafkaStreams streams, String storeName, RuleBook rules,
                                         String admissionKeyHeader, HostInfo self, int inputPartitions,
                                         TaskBacklogs backlogs, Supplier<ClosedLoop.Status> capacity,
                                         Supplier<CapacityHolding> holding)
            throws IOException {
        return start(port, registry, health, new BucketsEndpoint(streams, storeName, rules, admissionKeyHeader, self,
                inputPartitions, backlogs, System::currentTimeMillis), new CapacityEndpoint(capacity, holding));
    }

    /** {@link #start} with the {@code /buckets} endpoint built by the caller, no closed loop and no pool. */
    static OperationsServer start(int port, PrometheusMeterRegistry registry, StreamsHealth health,
                                  BucketsEndpoint buckets) throws IOException {
        return start(port, registry, health, buckets, new CapacityEndpoint(null, null));
    }

    /** {@link #start} with both endpoints built by the caller. */
    static OperationsServer start(int port, PrometheusMeterRegistry registry, StreamsHealth health,
                                  BucketsEndpoint buckets, CapacityEndpoint capacity) throws IOException {
        ExecutorService workers = workers();
        OperationsServer ops = new OperationsServer(workers, registry, health, buckets, capacity);
        try {
            ops.server = NettyHttpServer.start(port, workers, ops::handle);
        } catch (IOException e) {
            workers.shutdownNow();
            throw e;
        }
        LOG.info("HTTP server on port {}: /metrics /health/live /health/ready /buckets/{key} /capacity", ops.port());
        return ops;
    }

    /**
     * The threads that answer requests: few, since operators and Prometheus ask little, and the queue is bounded
     * so that a flood is answered with 503s rather than held in memory.
     */
    private static ExecutorService workers() {
        AtomicInteger threads = new AtomicInteger();
        return new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(MAX_QUEUED_REQUESTS), r -> {
                    Thread t = new Thread(r, "shaper-http-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** The port the server listens on (the chosen one when started with 0). */
    public int port() {
        return server.port();
    }

    private Response handle(Request request) {
        try {
            return route(request);
        } catch (RuntimeException e) {
            // Never a stack trace to the client; the log has it.
            LOG.warn("HTTP request {} {} failed", request.method(), request.rawPath(), e);
            return Response.error(500, "internal error: " + e.getClass().getSimpleName());
        }
    }

    private Response route(Request request) {
        String path = request.rawPath();
        if (!"GET".equals(request.method()) && !"HEAD".equals(request.method())) {
            return new Response(405, Response.JSON, Json.write(BucketsEndpoint.error(405, "only GET is supported")
                    .body()), Map.of("Allow", "GET, HEAD"));
        } else if (path.equals(METRICS_PATH)) {
            return new Response(200, PROMETHEUS_TEXT, ScrapeOrder.reorder(registry.scrape())
                    .getBytes(StandardCharsets.UTF_8));
        } else if (path.equals(LIVE_PATH)) {
            return json(healthAnswer(health.isLive()));
        } else if (path.equals(READY_PATH)) {
            return json(healthAnswer(health.isReady()));
        } else if (path.startsWith("/buckets/")) {
            return json(buckets.answer(path.substring("/buckets/".length()),
                    request.header(BucketsEndpoint.FORWARDED_HEADER)));
        } else if (path.equals("/capacity")) {
            return json(capacity.answer());
        } else {
            return json(BucketsEndpoint.error(404, "no such endpoint " + path
                    + "; try /metrics, /health/live, /health/ready, /buckets/{key} or /capacity"));
        }
    }

    private BucketsEndpoint.Answer healthAnswer(boolean up) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", up ? "UP" : "DOWN");
        body.put("detail", health.describe());
        return new BucketsEndpoint.Answer(up ? 200 : 503, body);
    }

    private static Response json(BucketsEndpoint.Answer answer) {
        return Response.json(answer.status(), answer.body());
    }

    @Override
    public void close() {
        server.close();
        executor.shutdownNow();
    }
}
