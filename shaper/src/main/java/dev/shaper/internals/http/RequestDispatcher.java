package dev.shaper.internals.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a connection's pipeline: hands each decoded request to the endpoints on a worker thread
 * (they may block: a Prometheus scrape, a forward to another instance) and writes the answer back.
 *
 * <p>One request at a time per connection: the channel does not auto-read, and the next request is asked for
 * only once the answer is written, so pipelined requests are answered in order (a {@code FlowControlHandler}
 * before this one holds requests decoded from the same read).
 */
final class RequestDispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {

    /** Longest request line; a key of a few KB, percent-encoded, still fits. */
    static final int MAX_INITIAL_LINE_BYTES = 16 * 1024;
    /** Longest header block; an operator's or Prometheus' request is far below. */
    static final int MAX_HEADER_BYTES = 16 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

    private final Executor workers;
    private final Function<Request, Response> endpoints;
    /** Whether an answer is being prepared: an idle connection is closed, one waiting for its answer is not. */
    private boolean answering; // read and written on the channel's event loop only

    /** @param endpoints answers a request; must not throw */
    RequestDispatcher(Executor workers, Function<Request, Response> endpoints) {
        this.workers = workers;
        this.endpoints = endpoints;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read(); // the channel does not auto-read: ask for the first request
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest msg) {
        if (LastAnswer.sent(ctx)) {
            return; // a request after a refused one: the connection is closing
        }
        DecoderResult decoded = msg.decoderResult();
        if (decoded.isFailure()) {
            LastAnswer.send(ctx, refusal(decoded.cause()).encode(msg.protocolVersion(), true, false));
            return;
        }
        answering = true;
        HttpVersion version = msg.protocolVersion();
        boolean keepAlive = HttpUtil.isKeepAlive(msg);
        boolean head = HttpMethod.HEAD.equals(msg.method());
        String path = RequestTarget.path(msg.uri());
        if (path == null) {
            send(ctx, Response.error(400, "malformed request target " + msg.uri() + "; expected a path such as"
                    + " /buckets/{key}"), version, head, keepAlive);
            return;
        }
        // Copied out of the message, which is released when this method returns.
        Request request = new Request(msg.method().name(), path, headers(msg));
        try {
            workers.execute(() -> answer(ctx, request, version, head, keepAlive));
        } catch (RejectedExecutionException e) {
            send(ctx, Response.error(503, "too many requests at once, or the server is stopping; ask again"
                    + " shortly"), version, head, keepAlive);
        }
    }

    /** On a worker thread. */
    private void answer(ChannelHandlerContext ctx, Request request, HttpVersion version, boolean head,
                        boolean keepAlive) {
        Response response = null;
        try {
            response = endpoints.apply(request);
        } finally {
            if (response != null) {
                send(ctx, response, version, head, keepAlive);
            } else {
                ctx.close(); // the endpoints threw (an Error): no answer, but no connection left waiting for one
            }
        }
    }

    /** Writes an answer (from any thread), then asks for the next request or closes. */
    private void send(ChannelHandlerContext ctx, Response response, HttpVersion version, boolean head,
                      boolean keepAlive) {
        ctx.writeAndFlush(response.encode(version, !head, keepAlive)).addListener((ChannelFutureListener) written -> {
            answering = false; // listeners run on the event loop
            if (keepAlive && written.isSuccess()) {
                ctx.read();
            } else {
                ctx.close();
            }
        });
    }

    /** The answer to a request Netty could not decode. */
    private static Response refusal(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return Response.error(414, "the request line exceeds " + MAX_INITIAL_LINE_BYTES
                    + " bytes");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return Response.error(431, "the request headers exceed " + MAX_HEADER_BYTES + " bytes");
        }
        return Response.error(400, "malformed request (" + cause.getMessage() + "); expected 'GET /path HTTP/1.1'"
                + " and headers");
    }

    private static Map<String, String> headers(FullHttpRequest msg) {
        Map<String, String> headers = new LinkedHashMap<>();
        msg.headers().forEach(h -> headers.putIfAbsent(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
        return headers;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent && !answering) {
            ctx.close(); // a client that neither sends nor reads must not hold the connection
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Mostly a client that went away; nothing to answer.
        LOG.debug("HTTP connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
