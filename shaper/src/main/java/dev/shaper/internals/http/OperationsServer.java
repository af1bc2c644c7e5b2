package dev.shaper.internals.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.shaper.internals.rules.RuleBook;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper's HTTP server for operators, on the JDK's built-in server (no framework):
 * <ul>
 *   <li>{@code GET /metrics}: every meter in Prometheus' text format;</li>
 *   <li>{@code GET /health/live}: 200 unless Kafka Streams failed;</li>
 *   <li>{@code GET /health/ready}: 200 only while Kafka Streams is RUNNING with its stores restored;</li>
 *   <li>{@code GET /buckets/{key}}: one key's queue and rules (see {@link BucketsEndpoint}).</li>
 * </ul>
 * Every failure is a JSON body with an {@code error} message and a 4xx or 5xx status, never a stack trace.
 */
public final class OperationsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperationsServer.class);
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;
    private final PrometheusMeterRegistry registry;
    private final StreamsHealth health;
    private final BucketsEndpoint buckets;

    private OperationsServer(HttpServer server, ExecutorService executor, PrometheusMeterRegistry registry,
                             StreamsHealth health, BucketsEndpoint buckets) {
        this.server = server;
        this.executor = executor;
        this.registry = registry;
        this.health = health;
        this.buckets = buckets;
    }

    /**
     * Binds {@code port} (0: any free port) and serves at once; health reports "not ready" until Kafka Streams
     * runs.
     *
     * @param self this instance's {@code application.server}, or null
     * @param inputPartitions the input topic's partition count
     * @throws BindException when the port is taken
     */
    public static OperationsServer start(int port, PrometheusMeterRegistry registry, StreamsHealth health,
                                         KafkaStreams streams, String storeName, RuleBook rules,
                                         String admissionKeyHeader, HostInfo self, int inputPartitions)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "shaper-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        BucketsEndpoint buckets = new BucketsEndpoint(streams, storeName, rules, admissionKeyHeader, self,
                inputPartitions, System::currentTimeMillis);
        OperationsServer ops = new OperationsServer(server, executor, registry, health, buckets);
        server.createContext("/", ops::handle);
        server.setExecutor(executor);
        server.start();
        LOG.info("HTTP server on port {}: /metrics /health/live /health/ready /buckets/{{key}}", ops.port());
        return ops;
    }

    /** The port the server listens on (the chosen one when started with 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        // Not try-with-resources: it would close the exchange before a catch block could send the 500.
        try {
            route(exchange);
        } catch (RuntimeException e) {
            // Never a stack trace to the client; the log has it.
            LOG.warn("HTTP request {} failed", exchange.getRequestURI(), e);
            try {
                json(exchange, BucketsEndpoint.error(500, "internal error: " + e.getClass().getSimpleName()));
            } catch (IOException | RuntimeException ignored) {
                // the response had already started; the client sees a cut connection
            }
        } finally {
            exchange.close();
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            json(exchange, BucketsEndpoint.error(405, "only GET is supported"));
        } else if (path.equals("/metrics")) {
            send(exchange, 200, PROMETHEUS_TEXT, registry.scrape().getBytes(StandardCharsets.UTF_8));
        } else if (path.equals("/health/live")) {
            json(exchange, healthAnswer(health.isLive()));
        } else if (path.equals("/health/ready")) {
            json(exchange, healthAnswer(health.isReady()));
        } else if (path.startsWith("/buckets/")) {
            json(exchange, buckets.answer(path.substring("/buckets/".length()),
                    exchange.getRequestHeaders().getFirst(BucketsEndpoint.FORWARDED_HEADER)));
        } else {
            json(exchange, BucketsEndpoint.error(404, "no such endpoint " + path
                    + "; try /metrics, /health/live, /health/ready or /buckets/{key}"));
        }
    }

    private BucketsEndpoint.Answer healthAnswer(boolean up) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", up ? "UP" : "DOWN");
        body.put("detail", health.describe());
        return new BucketsEndpoint.Answer(up ? 200 : 503, body);
    }

    private static void json(HttpExchange exchange, BucketsEndpoint.Answer answer) throws IOException {
        send(exchange, answer.status(), "application/json", Json.write(answer.body()));
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
