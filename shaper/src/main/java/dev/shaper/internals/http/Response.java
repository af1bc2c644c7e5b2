package dev.shaper.internals.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.LinkedHashMap;
import java.util.Map;

/** An answer: status, content type, body and any extra headers; Content-Length and Connection are added on encoding. */
record Response(int status, String contentType, byte[] body, Map<String, String> headers) {

    static final String JSON = "application/json";

    Response(int status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    /** A JSON answer. */
    static Response json(int status, Map<String, Object> body) {
        return new Response(status, JSON, Json.write(body));
    }

    /** A JSON error: {@code {"error": message}}. */
    static Response error(int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        return json(status, body);
    }

    /**
     * This answer as Netty's message for a request of {@code requestVersion}.
     *
     * @param withBody false for a HEAD: Content-Length still gives the length a GET would get
     * @param keepAlive whether the connection stays open after it (the Connection header says so)
     */
    FullHttpResponse encode(HttpVersion requestVersion, boolean withBody, boolean keepAlive) {
        FullHttpResponse out = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                withBody ? Unpooled.wrappedBuffer(body) : Unpooled.EMPTY_BUFFER);
        out.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH,
                body.length);
        headers.forEach(out.headers()::set);
        if (!keepAlive) {
            out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (!requestVersion.isKeepAliveDefault()) {
            out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE); // HTTP/1.0 closes otherwise
        }
        return out;
    }
}
