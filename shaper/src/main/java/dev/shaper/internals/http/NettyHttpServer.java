package dev.shaper.internals.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An HTTP/1.1 server on Netty's HTTP codec (Netty is on the classpath already, through Lettuce) for GET-style
 * endpoints: keep-alive, HEAD, bounded request heads and bodies, idle connections closed. The request target
 * reaches the endpoints still percent-encoded, so that they can say in JSON what is wrong with a malformed one
 * (the JDK's {@code com.sun.net.httpserver} answered those with an HTML 400 of its own before any handler ran).
 *
 * <p>One event-loop thread does all the network I/O; the endpoints run on the caller's workers.
 */
final class NettyHttpServer implements AutoCloseable {

    /** Largest request body; the endpoints take none. */
    static final int MAX_CONTENT_BYTES = 8 * 1024;
    /** A connection without traffic this long is closed (a slow or stalled client must not hold it). */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** Closing ends once the event loop had no task for this long: short, as tests start and stop many servers. */
    private static final long QUIET_PERIOD_MS = 50;
    private static final long SHUTDOWN_TIMEOUT_MS = 2_000;

    private final EventLoopGroup loop;
    private final Channel listener;
    private final int port;

    private NettyHttpServer(EventLoopGroup loop, Channel listener) {
        this.loop = loop;
        this.listener = listener;
        this.port = ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** {@link #start(int, Duration, Executor, Function)} closing connections idle for {@link #IDLE_TIMEOUT}. */
    static NettyHttpServer start(int port, Executor workers, Function<Request, Response> endpoints)
            throws IOException {
        return start(port, IDLE_TIMEOUT, workers, endpoints);
    }

    /**
     * Binds {@code port} (0: any free port) on every interface.
     *
     * @param idleTimeout a connection neither read from nor written to this long, and not waiting for an
     *                    answer, is closed
     * @param workers   runs {@code endpoints}, off the event loop; a rejection is answered with a 503
     * @param endpoints answers a request; must not throw
     * @throws IOException when the port cannot be bound (a {@link java.net.BindException} when it is taken)
     */
    static NettyHttpServer start(int port, Duration idleTimeout, Executor workers,
                                 Function<Request, Response> endpoints) throws IOException {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("shaper-http-io", true),
                NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true) // a restart must not wait for TIME_WAIT sockets
                .childOption(ChannelOption.AUTO_READ, false) // RequestDispatcher reads one request at a time
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(
                                new IdleStateHandler(0, 0, idleTimeout.toMillis(), TimeUnit.MILLISECONDS),
                                new HttpServerCodec(new HttpDecoderConfig()
                                        .setMaxInitialLineLength(RequestDispatcher.MAX_INITIAL_LINE_BYTES)
                                        .setMaxHeaderSize(RequestDispatcher.MAX_HEADER_BYTES)),
                                new RequestAggregator(MAX_CONTENT_BYTES),
                                new FlowControlHandler(),
                                new RequestDispatcher(workers, endpoints));
                    }
                });
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(port)).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            loop.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (bound.cause() instanceof IOException e) {
                throw e;
            }
            throw new IOException("cannot listen on port " + port, bound.cause());
        }
        return new NettyHttpServer(loop, bound.channel());
    }

    /** The port listened on (the chosen one when started with 0). */
    int port() {
        return port;
    }

    /** Stops listening and closes every connection; answers being prepared are dropped. */
    @Override
    public void close() {
        listener.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        loop.shutdownGracefully(QUIET_PERIOD_MS, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS + QUIET_PERIOD_MS);
    }
}
