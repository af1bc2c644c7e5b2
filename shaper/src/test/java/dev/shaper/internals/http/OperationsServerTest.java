package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.testsupport.Http;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The operations server's HTTP handling without Kafka Streams: every request here is answered before the
 * {@code /buckets} endpoint would query a store.
 */
class OperationsServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(OperationsServer.class);
    private OperationsServer server;

    @BeforeEach
    void start() throws IOException {
        logs.start();
        logger.addAppender(logs);
        BucketsEndpoint buckets = new BucketsEndpoint(null, "store",
                new RuleBook(new ShapingRule(1, 10, 60_000), List.of()), null, null, 1, new TaskBacklogs(),
                System::currentTimeMillis);
        server = OperationsServer.start(0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                new StreamsHealth(), buckets);
    }

    @AfterEach
    void stop() {
        server.close();
        logger.detachAppender(logs);
        logs.stop();
    }

    @ParameterizedTest
    @ValueSource(strings = {"%zz", "%", "a%2", "100%", "bad%zzkey"})
    void shouldAnswerAMalformedPercentEncodingWithAJsonError(String rawKey) {
        Http.Response answer = Http.rawGet(server.port(), "/buckets/" + rawKey);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(json(answer).get("error").asText()).contains("malformed percent-encoding at position");
    }

    @Test
    void shouldAnswerAMalformedRequestLineWithAJsonError() {
        Http.Response answer = Http.raw(server.port(), "NONSENSE\r\n\r\n");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(json(answer).get("error").asText()).isNotBlank();
    }

    @Test
    void shouldAnswerOtherMethodsAndUnknownPathsWithJsonErrors() {
        Http.Response post = Http.raw(server.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                + "Connection: close\r\n\r\n");
        assertThat(post.status()).isEqualTo(405);
        assertThat(json(post).get("error").asText()).contains("only GET");

        Http.Response unknown = Http.get(server.port(), "/nothing?x=1");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(json(unknown).get("error").asText()).contains("no such endpoint /nothing");
    }

    @Test
    void shouldRouteCapacityToItsEndpointWhenNoClosedLoopRuns() {
        Http.Response capacity = Http.get(server.port(), "/capacity");

        assertThat(capacity.status()).isEqualTo(404);
        assertThat(json(capacity).get("error").asText()).contains("shaper.capacity.adaptive=false");
    }

    @Test
    void shouldAnswerHeadWithoutABody() {
        Http.Response head = Http.raw(server.port(), "HEAD /health/live HTTP/1.1\r\nHost: x\r\n"
                + "Connection: close\r\n\r\n");

        assertThat(head.status()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void shouldNameTheEndpointsInTheStartLog() {
        assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line).contains("/buckets/{key}", "/capacity").doesNotContain("{{"));
    }

    private static JsonNode json(Http.Response response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }
}
