package dev.shaper.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free loopback port in front of a server (a {@code redis-server}), that can hold the server's
 * replies back: {@link #delayReplies(Duration)} makes every reply arrive that much later, while the commands still
 * reach the server and run at once. So a client sees a timeout for a command that did happen, as when a network or
 * an overloaded server answers late. Requests are never held.
 *
 * <pre>{@code
 * try (FaultyProxy proxy = FaultyProxy.start(redis.port())) {
 *     String uri = "redis://127.0.0.1:" + proxy.port();
 *     proxy.delayReplies(Duration.ofMillis(300)); // every reply from now on, 300 ms late
 *     proxy.delayReplies(Duration.ZERO);           // on time again
 * }
 * }</pre>
 */
public final class FaultyProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long replyDelayNanos;
    private volatile boolean closed;

    private FaultyProxy(ServerSocket listener, int targetPort) {
        this.listener = listener;
        this.targetPort = targetPort;
    }

    /** A proxy to {@code 127.0.0.1:targetPort}, accepting connections on a free loopback port at once. */
    public static FaultyProxy start(int targetPort) {
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName(RedisServer.HOST));
            FaultyProxy proxy = new FaultyProxy(listener, targetPort);
            Thread accept = new Thread(proxy::acceptLoop, "faulty-proxy-" + listener.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the proxy", e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** From now on every reply reaches the client {@code delay} after the server sent it (zero: at once). */
    public void delayReplies(Duration delay) {
        replyDelayNanos = delay.toNanos();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(RedisServer.HOST, targetPort), 5_000);
                } catch (IOException refused) {
                    client.close(); // the server is down: so is the proxy, to the client
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, false, "request");
                pump(server, client, true, "reply");
            } catch (IOException e) {
                if (!closed) {
                    LockSupport.parkNanos(10_000_000L); // an accept that failed: try again
                }
            }
        }
    }

    /** Copies {@code from} to {@code to} on a thread of its own, replies held back by the delay in force. */
    private void pump(Socket from, Socket to, boolean replies, String what) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16_384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = replies ? replyDelayNanos : 0;
                    if (delay > 0) {
                        LockSupport.parkNanos(delay);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // one side closed: close both, as a broken connection would be
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "faulty-proxy-" + what + "-" + port());
        pump.setDaemon(true);
        pump.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(FaultyProxy::closeQuietly);
    }
}
