package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.AuthRequest;
import dev.weft.security.AuthToken;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.eclipse.jetty.websocket.server.WebSocketCreator;

/**
 * One request and its response, as the endpoints see it: path parameters from the route table,
 * query parameters, bounded body reading, and one way to answer. Endpoints never touch Jetty.
 * An exchange is answered exactly once; {@link #answered()} tells the pipeline whether it was.
 */
public final class Exchange implements AuthRequest {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final Routes.PathParams pathParams;
    private final long maxBodyBytes;
    private Fields query;
    private RequestContext context;
    private int status;
    private boolean answered;
    private boolean bodyTouched;
    private byte[] bodyRead;
    private static final long DRAINED_MAX = 64 * 1024;
    private final boolean takesAccessToken;

    /**
     * @param takesAccessToken the route accepts {@code ?access_token=} in place of an
     *                         Authorization header (declared in the route table)
     */
    Exchange(Request request, Response response, Callback callback, Routes.PathParams pathParams, long maxBodyBytes,
             boolean takesAccessToken) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.pathParams = pathParams;
        this.maxBodyBytes = maxBodyBytes;
        this.takesAccessToken = takesAccessToken;
    }

    public String method() {
        return request.getMethod();
    }

    public String path() {
        return request.getHttpURI().getPath();
    }

    /** Whether the request came over TLS (to this server, not to a proxy in front of it). */
    public boolean secure() {
        return request.isSecure();
    }

    /** A path parameter of the route template, such as {@code db} or {@code id}. */
    public String pathParam(String name) {
        return pathParams.get(name).orElseThrow(() -> new IllegalStateException("route has no path parameter " + name));
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(request.getHeaders().get(name));
    }

    @Override
    public String remoteAddress() {
        return Request.getRemoteAddr(request);
    }

    @Override
    public void setResponseHeader(String name, String value) {
        setHeader(name, value);
    }

    /** The token's two headers, encoded once per token (they repeat on every answer to its user). */
    @Override
    public void setAuthToken(AuthToken token) {
        for (HttpField field : token.encoded(Exchange::authTokenFields)) {
            response.getHeaders().add(field);
        }
    }

    private static HttpField[] authTokenFields(AuthToken token) {
        return new HttpField[] {
            new PreEncodedHttpField(AuthToken.HEADER, token.token()),
            new PreEncodedHttpField(AuthToken.VALID_UNTIL_HEADER, token.validUntil())
        };
    }

    @Override
    public Optional<String> accessToken() {
        return takesAccessToken ? param("access_token") : Optional.empty();
    }

    public Optional<String> param(String name) {
        Fields.Field field = query().get(name);
        return field == null ? Optional.empty() : Optional.of(field.getValue());
    }

    public List<String> params(String name) {
        Fields.Field field = query().get(name);
        return field == null ? List.of() : field.getValues();
    }

    /** The names of the query parameters, in request order. */
    public java.util.Set<String> paramNames() {
        return query().getNames();
    }

    /** The raw query string, empty when none. */
    public String queryString() {
        String query = request.getHttpURI().getQuery();
        return query == null ? "" : query;
    }

    public boolean hasParam(String name) {
        return query().get(name) != null;
    }

    private Fields query() {
        if (query == null) {
            try {
                query = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                throw WeftException.badRequest("malformed query string");
            }
        }
        return query;
    }

    /**
     * The request's context, set once by the pipeline after the authorize stage. Before that
     * there is none, and asking for it is a programming error (a 500 to the client, never a grant).
     */
    RequestContext context() {
        if (context == null) {
            throw new IllegalStateException("the request was not authorized");
        }
        return context;
    }

    void authorized(RequestContext context) {
        if (this.context != null) {
            throw new IllegalStateException("the request was already authorized");
        }
        this.context = context;
    }

    public Principal principal() {
        return context().principal();
    }

    /** What the authorize stage granted: the restrictions every endpoint applies while it plans. */
    public Permission permission() {
        return context().permission();
    }

    /** The media type of the body without parameters, lower case; empty when absent. */
    public String contentType() {
        String value = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        if (value == null) {
            return "";
        }
        int semi = value.indexOf(';');
        return (semi < 0 ? value : value.substring(0, semi)).trim().toLowerCase();
    }

    /** The whole body, refused with 413 past {@code max-body-bytes}. */
    public byte[] body() {
        if (bodyRead != null) {
            return bodyRead; // the authorize stage read it first (RESTHeart's body predicates)
        }
        bodyTouched = true;
        long declared = request.getLength();
        if (declared > maxBodyBytes) {
            throw tooLarge();
        }
        try (InputStream in = bodyStream()) {
            // With a Content-Length (Jetty holds the body to it) one array of that size is read;
            // asking for max-body-bytes would make readNBytes fill 16 KiB buffers for a 400-byte
            // document. A chunked body is read up to the limit.
            int wanted = declared >= 0 ? (int) declared : (int) Math.min(maxBodyBytes + 1, Integer.MAX_VALUE - 8);
            byte[] bytes = in.readNBytes(wanted);
            if (bytes.length > maxBodyBytes) {
                throw tooLarge();
            }
            bodyRead = bytes;
            return bytes;
        } catch (IOException e) {
            throw WeftException.badRequest("could not read the request body: " + e.getMessage());
        }
    }

    private WeftException tooLarge() {
        return new WeftException(413, "request body is larger than max-body-bytes (" + maxBodyBytes + ")");
    }

    /** The body as a stream, for ndjson ingest (limited per line by the reader, not in total). */
    public InputStream bodyStream() {
        if (bodyRead != null) {
            return new java.io.ByteArrayInputStream(bodyRead);
        }
        bodyTouched = true;
        return Content.Source.asInputStream(request);
    }

    /**
     * Before an error answer to a request whose body nobody read: a small body is read and
     * dropped, so the keep-alive connection stays usable; past {@value #DRAINED_MAX} bytes (or of
     * unknown length) the answer says {@code Connection: close} instead of reading it. Without
     * this, Jetty closes the connection after the answer and the client's next request on it
     * fails with no response.
     */
    void discardUnreadBody() {
        if (bodyTouched || (request.getLength() <= 0 && !request.getHeaders().contains("Transfer-Encoding"))) {
            return;
        }
        long length = request.getLength();
        if (length > 0 && length <= DRAINED_MAX) {
            try (InputStream in = bodyStream()) {
                in.skip(length);
                return;
            } catch (IOException e) {
                // fall through: the connection is not worth keeping
            }
        }
        response.getHeaders().put("Connection", "close");
    }

    public void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    public void send(int status, String contentType, byte[] body) {
        send(status, new HttpField(HttpHeader.CONTENT_TYPE, contentType), body);
    }

    public void sendJson(int status, byte[] json) {
        send(status, JSON, json);
    }

    /** Most answers are JSON: their content type is encoded once, not on every answer. */
    private static final HttpField JSON = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/json");

    private void send(int status, HttpField contentType, byte[] body) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    public void sendEmpty(int status) {
        markAnswered(status);
        response.setStatus(status);
        response.write(true, null, callback);
    }

    /**
     * Starts a streamed response of unknown length; the caller writes and closes the stream,
     * which completes the exchange. Writes block this virtual thread while the client is slow,
     * so a stream's memory is bounded by the output buffer, not by the result size.
     */
    public OutputStream stream(int status, String contentType) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        OutputStream out = Content.Sink.asOutputStream(response);
        return new java.io.FilterOutputStream(out) {
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

    /**
     * Starts a response that stays open after the endpoint returns (an SSE stream), written
     * asynchronously so that no thread waits for the client; {@link AsyncStream#end} or
     * {@link AsyncStream#abort} completes the exchange. The stream keeps only Jetty's response and
     * callback, not this exchange: while thousands of streams sit idle, the request's parameters,
     * principal and permission are garbage (docs/benchmarks.md, hold).
     */
    AsyncStream openAsync(int status, String contentType) {
        markAnswered(status);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        return new AsyncStream(response, callback);
    }

    /**
     * The open response of {@link #openAsync}: one write at a time (the caller's duty), completed
     * once. It is its own write callback (no allocation per write but the buffer's wrapper), and a
     * non-blocking one: Jetty completes a write on the selector thread instead of handing the
     * completion to a new thread.
     */
    static final class AsyncStream implements Callback {
        private static final VarHandle COMPLETED;
        private static final VarHandle DONE;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                COMPLETED = lookup.findVarHandle(AsyncStream.class, "completed", boolean.class);
                DONE = lookup.findVarHandle(AsyncStream.class, "done", Consumer.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Response response;
        private final Callback callback;
        @SuppressWarnings("unused") // through COMPLETED
        private volatile boolean completed;
        @SuppressWarnings("unused") // through DONE
        private volatile Consumer<Throwable> done;

        private AsyncStream(Response response, Callback callback) {
            this.response = response;
            this.callback = callback;
        }

        /** Writes {@code bytes}; {@code done} gets null once they are written, or the failure. */
        void write(byte[] bytes, Consumer<Throwable> done) {
            if (!DONE.compareAndSet(this, null, done)) {
                throw new IllegalStateException("a write is already in flight");
            }
            response.write(false, ByteBuffer.wrap(bytes), this);
        }

        @Override
        public void succeeded() {
            complete(null);
        }

        @Override
        public void failed(Throwable failure) {
            complete(failure);
        }

        @SuppressWarnings("unchecked")
        private void complete(Throwable failure) {
            Consumer<Throwable> d = (Consumer<Throwable>) DONE.getAndSet(this, null);
            if (d != null) {
                d.accept(failure);
            }
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }

        void end() {
            if (COMPLETED.compareAndSet(this, false, true)) {
                response.write(true, null, callback);
            }
        }

        void abort(Throwable why) {
            if (COMPLETED.compareAndSet(this, false, true)) {
                callback.failed(why);
            }
        }
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
