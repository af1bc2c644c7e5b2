package dev.shaper.internals.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import java.util.concurrent.TimeUnit;

/**
 * The last answer on a connection whose client may still be sending (a request line or headers too long, a
 * body too large). Closing a socket with unread input makes the kernel send a reset, which some clients' stacks
 * let discard the answer before it is read; so, as RFC 9112 (section 9.6) advises, the answer is followed by a
 * half close, the rest of the input is read and dropped, and the connection closes when the client closes it or
 * after {@link #LINGER_MS}.
 */
final class LastAnswer {

    /** How long the rest of a refused request is read and dropped; enough for a client to read its answer. */
    static final long LINGER_MS = 2_000;

    private LastAnswer() {
    }

    /** Sends {@code response} (which says {@code Connection: close}), then closes as described above. */
    static void send(ChannelHandlerContext ctx, FullHttpResponse response) {
        ctx.writeAndFlush(response).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess() || !(written.channel() instanceof SocketChannel socket)) {
                written.channel().close();
                return;
            }
            socket.shutdownOutput();
            socket.config().setAutoRead(true); // drain: the decoder drops what follows a refused request
            socket.eventLoop().schedule(() -> socket.close(), LINGER_MS, TimeUnit.MILLISECONDS);
        });
    }

    /** Whether a last answer was sent on this connection (later requests get none). */
    static boolean sent(ChannelHandlerContext ctx) {
        return ctx.channel() instanceof SocketChannel socket && socket.isOutputShutdown();
    }
}
