package dev.shaper.internals.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal HTTP/1.1 server on blocking sockets for GET-style endpoints: one request per connection (each
 * answer says {@code Connection: close}), a request body is not read, the request target is handed over
 * still percent-encoded.
 *
 * <p>Why not the JDK's {@code com.sun.net.httpserver}: it parses each request target with {@link java.net.URI}
 * before any handler runs and answers a malformed one ({@code /buckets/100%}) with an HTML 400 of its own, so
 * the endpoints could not say in JSON what is wrong with the key.
 */
final class MinimalHttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MinimalHttpServer.class);
    /** Longest request line plus headers; an operator's GET is far below. */
    static final int MAX_HEAD_BYTES = 16 * 1024;
    /** How long a client may take to send its request head (a stalled client must not hold a thread). */
    private static final int READ_TIMEOUT_MS = 10_000;

    /** What arrived on a connection: a request, or a refusal saying why there is none. */
    sealed interface Incoming permits Request, Refusal {
    }

    /** A request: its method, its path still percent-encoded (no query), and its headers (names lower case). */
    record Request(String method, String rawPath, Map<String, String> headers) implements Incoming {
        /** The first value of header {@code name}, or null. */
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** A response; the server adds Content-Length and Connection, and leaves out the body of a HEAD. */
    record Response(int status, String contentType, byte[] body, Map<String, String> headers) {
        Response(int status, String contentType, byte[] body) {
            this(status, contentType, body, Map.of());
        }
    }

    /** A request the server could not read: why, for a 400 or 431 body. */
    record Refusal(int status, String message) implements Incoming {
    }

    private final ServerSocket socket;
    private final ExecutorService workers;
    private final Function<Request, Response> handler;
    private final Function<Refusal, Response> refusals;
    private final Thread acceptor;

    private MinimalHttpServer(ServerSocket socket, ExecutorService workers, Function<Request, Response> handler,
                              Function<Refusal, Response> refusals) {
        this.socket = socket;
        this.workers = workers;
        this.handler = handler;
        this.refusals = refusals;
        this.acceptor = new Thread(this::acceptLoop, "shaper-http-accept");
        this.acceptor.setDaemon(true);
    }

    /**
     * Binds {@code port} (0: any free port) and serves each connection on {@code workers}.
     *
     * @param handler  answers a request; must not throw
     * @param refusals answers a request that could not be read (malformed or too long)
     */
    static MinimalHttpServer start(int port, ExecutorService workers, Function<Request, Response> handler,
                                   Function<Refusal, Response> refusals) throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true); // a restart must not wait for the previous run's TIME_WAIT sockets
            socket.bind(new InetSocketAddress(port));
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        MinimalHttpServer server = new MinimalHttpServer(socket, workers, handler, refusals);
        server.acceptor.start();
        return server;
    }

    int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            Socket connection;
            try {
                connection = socket.accept();
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    LOG.warn("HTTP server: accept failed: {}", e.toString());
                }
                continue;
            }
            try {
                workers.execute(() -> serve(connection));
            } catch (RejectedExecutionException e) {
                closeQuietly(connection); // closing down
            }
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            connection.setSoTimeout(READ_TIMEOUT_MS);
            // Buffered: the head is read byte by byte, and one request per connection makes reading ahead harmless.
            Incoming incoming = readRequest(new BufferedInputStream(connection.getInputStream()));
            if (incoming instanceof Request request) {
                write(connection.getOutputStream(), handler.apply(request), request.method().equals("HEAD"));
            } else {
                write(connection.getOutputStream(), refusals.apply((Refusal) incoming), false);
            }
        } catch (SocketException e) {
            // the client went away; nothing to answer
        } catch (IOException e) {
            LOG.debug("HTTP connection from {} failed: {}", connection.getRemoteSocketAddress(), e.toString());
        }
    }

    private static Incoming readRequest(InputStream in) throws IOException {
        String head = readHead(in);
        if (head == null) {
            return new Refusal(431, "the request line and headers exceed " + MAX_HEAD_BYTES + " bytes");
        }
        String[] lines = head.split("\n");
        String[] requestLine = lines[0].split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/")) {
            return new Refusal(400, "malformed request line; expected 'GET /path HTTP/1.1'");
        }
        String path = originPath(requestLine[1]);
        if (path == null) {
            return new Refusal(400, "malformed request target " + requestLine[1] + "; expected a path such as"
                    + " /buckets/{key}");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        return new Request(requestLine[0], path, headers);
    }

    /**
     * The request head up to the blank line, line ends as {@code \n} (a bare {@code \n} ends a line too, as
     * RFC 9112 allows), or null when it is too long.
     */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        int lineLength = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new SocketException("connection closed before the end of the request head");
            }
            if (head.size() == MAX_HEAD_BYTES) {
                return null;
            }
            if (b == '\n') {
                if (lineLength == 0 && head.size() > 0) {
                    return head.toString(StandardCharsets.ISO_8859_1);
                }
                if (lineLength > 0) { // empty lines before the request line are skipped (RFC 9112)
                    head.write(b);
                }
                lineLength = 0;
            } else if (b != '\r') {
                head.write(b);
                lineLength++;
            }
        }
    }

    /** The path of a request target (origin form, or absolute form as sent to proxies), without the query. */
    private static String originPath(String target) {
        String path = target;
        if (target.startsWith("http://") || target.startsWith("https://")) {
            int slash = target.indexOf('/', target.indexOf("//") + 2);
            path = slash < 0 ? "/" : target.substring(slash);
        }
        if (!path.startsWith("/")) {
            return null;
        }
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    private static void write(OutputStream out, Response response, boolean head) throws IOException {
        StringBuilder text = new StringBuilder("HTTP/1.1 ").append(response.status()).append(' ')
                .append(reason(response.status())).append("\r\n")
                .append("Content-Type: ").append(response.contentType()).append("\r\n")
                .append("Content-Length: ").append(response.body().length).append("\r\n")
                .append("Connection: close\r\n");
        response.headers().forEach((name, value) -> text.append(name).append(": ").append(value).append("\r\n"));
        text.append("\r\n");
        out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!head) {
            out.write(response.body());
        }
        out.flush();
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 421 -> "Misdirected Request";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> ""; // the reason phrase is optional (RFC 9112)
        };
    }

    private static void closeQuietly(Socket connection) {
        try {
            connection.close();
        } catch (IOException ignored) {
            // nothing to release beyond the socket
        }
    }

    /** Stops accepting; connections being served finish on their worker threads. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.warn("while closing the HTTP server socket: {}", e.toString());
        }
        try {
            acceptor.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
