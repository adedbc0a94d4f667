package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.AuthRequest;
import dev.weft.security.AuthToken;
import dev.weft.security.Credential;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.eclipse.jetty.websocket.server.WebSocketCreator;

/**
 * One request and its response, as the endpoints see it: path parameters from the route table,
 * query parameters, the credential and authorization the pipeline attached, the body and the
 * answer. Endpoints never touch Jetty. The work behind it lives in package-private classes, one
 * job each: {@link RequestBody} (bounded reading), {@link Responses} (the one answer, a stream,
 * an SSE {@link AsyncStream} or a WebSocket upgrade); this class keeps the request accessors and
 * the {@link AuthRequest} side, and its public methods are what endpoints call. An exchange is
 * answered exactly once; {@link #answered()} tells the pipeline whether it was.
 */
public final class Exchange implements AuthRequest {
    private final Request request;
    private final Routes.PathParams pathParams;
    private final RequestBody body;
    private final Responses responses;
    private Fields query;
    private RequestContext context;
    private Credential credential = Credential.ANONYMOUS;
    private final boolean takesAccessToken;
    private AuthToken authToken;

    /**
     * @param takesAccessToken the route accepts {@code ?access_token=} in place of an
     *                         Authorization header (declared in the route table)
     */
    Exchange(Request request, Response response, Callback callback, Routes.PathParams pathParams, long maxBodyBytes,
             boolean takesAccessToken) {
        this.request = request;
        this.pathParams = pathParams;
        this.body = new RequestBody(request, maxBodyBytes);
        this.responses = new Responses(request, response, callback);
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
        this.authToken = token;
        for (HttpField field : token.encoded(Exchange::authTokenFields)) {
            responses.addHeader(field);
        }
    }

    /** The auth token this request's answer announces, when authentication issued one. */
    Optional<AuthToken> authToken() {
        return Optional.ofNullable(authToken);
    }

    /** Takes the auth token's headers off the answer (the token was just revoked). */
    void dropAuthToken() {
        authToken = null;
        responses.removeHeader(AuthToken.HEADER);
        responses.removeHeader(AuthToken.VALID_UNTIL_HEADER);
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

    /** The context when the request got as far as being authorized (error answers ask). */
    Optional<RequestContext> authorizedContext() {
        return Optional.ofNullable(context);
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

    /** What the request authenticated with, for a long-lived request to check again (streams). */
    Credential credential() {
        return credential;
    }

    @Override
    public void authenticatedWith(Credential credential) {
        this.credential = credential;
    }

    /** The decoded path segments the request was authorized for. */
    List<String> segments() {
        return context().match().segments();
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
        return body.bytes();
    }

    /** The body as a stream, for ndjson ingest (limited per line by the reader, not in total). */
    public InputStream bodyStream() {
        return body.stream();
    }

    /**
     * Before an error answer to a request whose body nobody read: a small body is dropped, a
     * large one makes the answer close the connection ({@link RequestBody#discardUnread}).
     */
    void discardUnreadBody() {
        if (!body.discardUnread()) {
            responses.setHeader("Connection", "close");
        }
    }

    public void setHeader(String name, String value) {
        responses.setHeader(name, value);
    }

    public void send(int status, String contentType, byte[] body) {
        responses.send(status, new HttpField(HttpHeader.CONTENT_TYPE, contentType), body);
    }

    /** A JSON answer; a successful one in the request's {@link JsonMode} when it names one. */
    public void sendJson(int status, byte[] json) {
        sendJson(status, json, json.length);
    }

    /** {@link #sendJson(int, byte[])} of the first {@code length} bytes of {@code json}, sent from where they are. */
    void sendJson(int status, byte[] json, int length) {
        Optional<JsonMode> mode = status / 100 == 2 ? jsonMode() : Optional.empty();
        responses.send(status, Responses.JSON, mode.isPresent()
                ? ByteBuffer.wrap(mode.get().render(Arrays.copyOf(json, length)))
                : ByteBuffer.wrap(json, 0, length));
    }

    /** The request's {@code jsonMode} (none for the standard output); 400 for an unknown one. */
    Optional<JsonMode> jsonMode() {
        return JsonMode.of(this);
    }

    public void sendEmpty(int status) {
        responses.sendEmpty(status);
    }

    /**
     * Starts a streamed response of unknown length; the caller writes and closes the stream,
     * which completes the exchange. Writes block this virtual thread while the client is slow,
     * so a stream's memory is bounded by the output buffer, not by the result size.
     */
    public OutputStream stream(int status, String contentType) {
        return responses.stream(status, contentType);
    }

    /**
     * Upgrades the request to a WebSocket served by what {@code creator} makes; false (and
     * nothing answered) when the request is not a WebSocket upgrade.
     */
    boolean upgrade(ServerWebSocketContainer container, WebSocketCreator creator) {
        return responses.upgrade(container, creator);
    }

    /**
     * Starts a response that stays open after the endpoint returns (an SSE stream), written
     * asynchronously so that no thread waits for the client; {@link AsyncStream#end} or
     * {@link AsyncStream#abort} completes the exchange. The stream keeps only Jetty's response and
     * callback, not this exchange: while thousands of streams sit idle, the request's parameters,
     * principal and permission are garbage (docs/benchmarks.md, hold).
     */
    AsyncStream openAsync(int status, String contentType) {
        return responses.openAsync(status, contentType);
    }

    boolean answered() {
        return responses.answered();
    }

    int status() {
        return responses.status();
    }

    boolean isCommitted() {
        return responses.isCommitted();
    }

    void fail(Throwable failure) {
        responses.fail(failure);
    }
}
