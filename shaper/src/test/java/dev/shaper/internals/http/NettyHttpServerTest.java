package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP server's connection handling, with endpoints that echo the path: keep-alive, pipelining, limits on
 * the request head and body, idle connections. Every read has a timeout, so a server that hangs fails the test.
 */
class NettyHttpServerTest {

    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private NettyHttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        workers.shutdownNow();
    }

    @Test
    void shouldAnswerTwoRequestsInARowOnOneKeepAliveConnection() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        try (Socket socket = connect()) {
            send(socket, "GET /one HTTP/1.1\r\nHost: x\r\n\r\n");
            Answer first = read(socket);
            send(socket, "GET /two?q=1 HTTP/1.1\r\nHost: x\r\n\r\n");
            Answer second = read(socket);

            assertThat(first.status()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("/one");
            assertThat(first.headers()).doesNotContainKey("connection");
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo("/two");
        }
    }

    @Test
    void shouldAnswerPipelinedRequestsInTheirOrder() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        try (Socket socket = connect()) {
            // Two workers: without one request at a time per connection, /fast would be answered first.
            send(socket, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n");

            assertThat(read(socket).body()).isEqualTo("/slow");
            assertThat(read(socket).body()).isEqualTo("/fast");
        }
    }

    @Test
    void shouldCloseAfterTheAnswerWhenTheClientAsks() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        try (Socket socket = connect()) {
            send(socket, "GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

            Answer answer = read(socket);
            assertThat(answer.headers()).containsEntry("connection", "close");
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void shouldAnswerAnOverLongRequestLineWithAJsonErrorRatherThanHang() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        try (Socket socket = connect()) {
            send(socket, "GET /buckets/" + "a".repeat(RequestDispatcher.MAX_INITIAL_LINE_BYTES + 4_000)
                    + " HTTP/1.1\r\nHost: x\r\n\r\n");

            Answer answer = read(socket);
            assertThat(answer.status()).isEqualTo(414);
            assertThat(answer.body()).startsWith("{\"error\":\"the request line exceeds");
            assertThat(answer.headers()).containsEntry("connection", "close");
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void shouldAnswerOverLongHeadersWithAJsonError() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        try (Socket socket = connect()) {
            send(socket, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: "
                    + "b".repeat(RequestDispatcher.MAX_HEADER_BYTES) + "\r\n\r\n");

            Answer answer = read(socket);
            assertThat(answer.status()).isEqualTo(431);
            assertThat(answer.body()).startsWith("{\"error\":\"the request headers exceed");
        }
    }

    @Test
    void shouldAnswerABodyAboveTheLimitWithAJsonError() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);
        int length = NettyHttpServer.MAX_CONTENT_BYTES * 4;
        try (Socket socket = connect()) {
            send(socket, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n"
                    + "c".repeat(length));

            Answer answer = read(socket);
            assertThat(answer.status()).isEqualTo(413);
            assertThat(answer.body()).startsWith("{\"error\":\"the request body exceeds");
        }
    }

    @Test
    void shouldCloseAnIdleConnection() throws IOException {
        start(Duration.ofMillis(300));
        try (Socket socket = connect()) {
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void shouldKeepAConnectionOpenWhileItsAnswerIsPrepared() throws IOException {
        start(Duration.ofMillis(100)); // /slow takes longer than this
        try (Socket socket = connect()) {
            send(socket, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");

            assertThat(read(socket).body()).isEqualTo("/slow");
        }
    }

    @Test
    void shouldFailWithABindExceptionWhenThePortIsTaken() throws IOException {
        start(NettyHttpServer.IDLE_TIMEOUT);

        assertThatThrownBy(() -> NettyHttpServer.start(server.port(), workers, r -> null))
                .isInstanceOf(BindException.class);
    }

    private void start(Duration idle) throws IOException {
        server = NettyHttpServer.start(0, idle, workers, request -> {
            if (request.rawPath().equals("/slow")) {
                sleep(500);
            }
            return new Response(200, "text/plain", request.rawPath().getBytes(StandardCharsets.UTF_8));
        });
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("localhost", server.port());
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static void send(Socket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }

    /** A status, headers (names lower case) and a body of Content-Length bytes. */
    private record Answer(int status, Map<String, String> headers, String body) {
    }

    /** One answer, read to its Content-Length and no further, so that the connection can carry another. */
    private static Answer read(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed within the answer's head: " + head);
            }
            head.write(b);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        byte[] body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers,
                new String(body, StandardCharsets.UTF_8));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
