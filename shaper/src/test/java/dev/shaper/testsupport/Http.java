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
     * The status of a GET sent as raw bytes, for paths that {@link java.net.URI} refuses to build (a client can
     * still send them).
     */
    public static int rawGetStatus(int port, String rawPath) {
        try (java.net.Socket socket = new java.net.Socket("localhost", port)) {
            socket.getOutputStream().write(("GET " + rawPath + " HTTP/1.1\r\nHost: localhost\r\n"
                    + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String statusLine = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII)).readLine();
            return Integer.parseInt(statusLine.split(" ")[1]);
        } catch (IOException e) {
            throw new IllegalStateException("GET " + rawPath + " failed", e);
        }
    }
}
