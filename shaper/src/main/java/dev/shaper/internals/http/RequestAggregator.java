package dev.shaper.internals.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;

/**
 * Netty's aggregator of a request and its body, which answers a body above the limit with a JSON 413 (Netty's
 * own 413 has no body, and every error of this server says in JSON what is wrong). The endpoints take no body.
 */
final class RequestAggregator extends HttpObjectAggregator {

    private final int maxContentLength;

    RequestAggregator(int maxContentLength) {
        super(maxContentLength);
        this.maxContentLength = maxContentLength;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // The body is on its way still: the last answer on this connection, which is read and dropped after it.
        LastAnswer.send(ctx, Response.error(413, "the request body exceeds " + maxContentLength
                + " bytes; these endpoints take no body").encode(oversized.protocolVersion(), true, false));
    }
}
