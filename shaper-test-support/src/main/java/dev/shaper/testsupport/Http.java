package dev.shaper.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain HTTP GETs against a shaper's operations server on localhost. */
public final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A status and body; status -1 when the connection failed. */
    public record Response(int status, String body) {
    }

    private Http() {
    }

    public static Response get(int port, String path) {
        try {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Response(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Response(-1, e.toString());
        }
    }

    /**
     * A GET sent as raw bytes, for paths that {@link java.net.URI} refuses to build (a client can still send
     * them).
     */
    public static Response rawGet(int port, String rawPath) {
        return raw(port, "GET " + rawPath + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    }

    /** The status and body of {@code request}, sent as it is (US-ASCII) on a connection of its own. */
    public static Response raw(int port, String request) {
        try (java.net.Socket socket = new java.net.Socket("localhost", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
            int headEnd = answer.indexOf("\r\n\r\n");
            return new Response(Integer.parseInt(answer.split(" ")[1]),
                    headEnd < 0 ? "" : answer.substring(headEnd + 4));
        } catch (IOException e) {
            throw new IllegalStateException("request " + request.lines().findFirst().orElse("") + " failed", e);
        }
    }
}
