package dev.weft.http;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.eclipse.jetty.websocket.server.WebSocketCreator;

/**
 * The one answer to a request: a whole body, a stream, an open asynchronous stream (SSE) or a
 * WebSocket upgrade. Invariant: answered exactly once ({@link #markAnswered} refuses a second),
 * and each way completes Jetty's callback exactly once, when the answer is done.
 */
final class Responses {
    /** Most answers are JSON: their content type is encoded once, not on every answer. */
    static final HttpField JSON = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/json");

    private final Request request;
    private final Response response;
    private final Callback callback;
    private int status;
    private boolean answered;

    Responses(Request request, Response response, Callback callback) {
        this.request = request;
        this.response = response;
        this.callback = callback;
    }

    void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    void removeHeader(String name) {
        response.getHeaders().remove(name);
    }

    void addHeader(HttpField field) {
        response.getHeaders().add(field);
    }

    void send(int status, HttpField contentType, byte[] body) {
        send(status, contentType, ByteBuffer.wrap(body));
    }

    /** A whole body: {@code body}'s remaining bytes, which Jetty writes from where they are (no copy). */
    void send(int status, HttpField contentType, ByteBuffer body) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.remaining());
        response.write(true, body, callback);
    }

    void sendEmpty(int status) {
        markAnswered(status);
        response.setStatus(status);
        response.write(true, null, callback);
    }

    /**
     * Starts a streamed response of unknown length; the caller writes and closes the stream,
     * which completes the exchange. Writes block the calling virtual thread while the client is
     * slow, so a stream's memory is bounded by the output buffer, not by the result size.
     */
    OutputStream stream(int status, String contentType) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        OutputStream out = Content.Sink.asOutputStream(response);
        return new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                try {
                    out.close();
                    callback.succeeded();
                } catch (IOException | RuntimeException e) {
                    callback.failed(e);
                    throw e;
                }
            }
        };
    }

    /**
     * Upgrades the request to a WebSocket served by what {@code creator} makes; false (and
     * nothing answered) when the request is not a WebSocket upgrade.
     */
    boolean upgrade(ServerWebSocketContainer container, WebSocketCreator creator) {
        if (!container.upgrade(creator, request, response, callback)) {
            return false;
        }
        markAnswered(101);
        return true;
    }

    /** An open response ({@link AsyncStream}), keeping only Jetty's response and callback. */
    AsyncStream openAsync(int status, String contentType) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        return new AsyncStream(response, callback);
    }

    private void markAnswered(int status) {
        if (answered) {
            throw new IllegalStateException("exchange answered twice");
        }
        answered = true;
        this.status = status;
    }

    boolean answered() {
        return answered;
    }

    int status() {
        return status;
    }

    boolean isCommitted() {
        return response.isCommitted();
    }

    void fail(Throwable failure) {
        callback.failed(failure);
    }
}
