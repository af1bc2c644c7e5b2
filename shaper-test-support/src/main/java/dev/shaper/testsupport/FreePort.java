package dev.shaper.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Ports for servers the tests start, where the port must be named before the server binds it. */
public final class FreePort {

    private FreePort() {
    }

    /** A loopback port that was free a moment ago. */
    public static int find() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(RedisServer.HOST, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
