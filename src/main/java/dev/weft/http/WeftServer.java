package dev.weft.http;

import dev.weft.core.AuthSettings;
import dev.weft.core.Json;
import dev.weft.core.Pem;
import dev.weft.core.Settings;
import dev.weft.observe.Metrics;
import dev.weft.schema.JsonSchemas;
import dev.weft.security.Authorizer;
import dev.weft.security.Security;
import dev.weft.store.Store;
import dev.weft.store.TtlReaper;
import dev.weft.store.txn.Sessions;
import dev.weft.stream.StreamHub;
import java.time.Duration;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * Weft's HTTP listener on Jetty 12 core (chosen by measurement: docs/decisions/0001-http-server.md).
 * Selectors and acceptors stay on a few platform threads; every request runs on its own virtual
 * thread unless memory alone answers it (see RequestPipeline), so handlers block. Open connections are capped ({@code max-connections}), idle ones
 * closed ({@code idle-timeout-ms}), and a request whose headers trickle in is answered 408
 * ({@code header-timeout-ms}, see {@link HeaderDeadline}). With {@code tls-cert-file} and {@code tls-key-file} a second,
 * HTTPS listener serves the same API on {@code tls-port} (HTTP/1.1 over TLS; the certificate is
 * read once at start). Stopping is graceful: the listener closes, in-flight requests
 * finish (up to a grace period), then the store closes.
 */
public final class WeftServer implements AutoCloseable {
    private static final long STOP_GRACE_MS = 10_000;
    /**
     * One selector per core: cached reads are answered on the selector threads, so one selector
     * would cap them at one core.
     */
    private static final int SELECTORS = Runtime.getRuntime().availableProcessors();

    /**
     * Frames a WebSocket stream client may have unsent before it is cut off. The hub keeps one
     * write in flight per client, plus a ping or a close frame, so a client reaching it means that
     * discipline broke. Counted by {@link WebSocketSender} for both of its ways: Jetty's own count
     * of this setting is in its session's {@code sendFrame}, which the internal writer skips.
     */
    private static final int MAX_OUTGOING_FRAMES = 8;
    /** Stream clients send nothing but control frames; a larger message is refused. */
    private static final int MAX_INCOMING_MESSAGE = 4096;

    private final Server server;
    private final ServerConnector connector;
    private final StreamHub streams;
    private final TtlReaper ttl;
    private final Optional<ServerConnector> tlsConnector;
    private final Routes routes;
    private final Sessions sessions;

    public WeftServer(Settings settings, Store store, Security security, Authorizer authorizer) {
        QueuedThreadPool threads = RequestThreads.pool(16, 4);
        threads.setName("weft-io");
        // No reserved threads: Jetty's selectors then run a non-blocking task (parsing a request
        // and RequestPipeline.handle, which only hands it to a virtual thread unless memory
        // answers it) on the selector thread itself, instead of waking a pool thread to take over
        // selecting for every request (a futex wake and a context switch per request).
        threads.setReservedThreads(0);
        Executor requestThreads = RequestThreads.virtual();
        threads.setVirtualThreadsExecutor(requestThreads);
        server = new Server(threads);

        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        // Jetty's per-connection header cache matches values case-insensitively, so a Base64
        // credential differing only in case was taken for the one cached, and it costs a 96 KiB
        // trie per keep-alive connection. Without it a header value is copied into a new string,
        // which perf priced about the same as the trie walk (decision record 0001, addendum).
        http.setHeaderCacheSize(0);
        HeaderDeadline plain = new HeaderDeadline(http, settings.headerTimeoutMs());
        connector = new ServerConnector(server, 1, SELECTORS, plain);
        connector.setHost(settings.bind());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeoutMs());
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        HeaderDeadline secure = new HeaderDeadline(https(http), settings.headerTimeoutMs());
        tlsConnector = settings.auth().tlsEnabled() ? Optional.of(tls(settings, secure)) : Optional.empty();
        ConnectionLimit connections = tlsConnector
                .map(tls -> new ConnectionLimit(settings.maxConnections(), connector, tls))
                .orElseGet(() -> new ConnectionLimit(settings.maxConnections(), connector));
        server.addBean(connections);

        Metrics metrics = new Metrics();
        metrics.counter("weft_header_timeouts_total", "Requests answered 408 because their headers took longer than header-timeout-ms.",
                () -> plain.expired() + secure.expired());
        metrics.counter("weft_password_hashes_total", "Passwords hashed or verified (bcrypt/argon2), logins and password writes alike.",
                security::passwordHashes);
        JsonSchemas schemas = JsonSchemas.open(store, settings);
        ttl = new TtlReaper(store, new Json(settings.maxNestingDepth()), settings.ttlIntervalMs(), settings.ttlBatch(),
                System::currentTimeMillis);
        Api api = Api.of(store, settings, security.policies().or(authorizer.policies()).or(schemas.storePolicies()));
        metrics.counter("weft_deep_pages_total", "Pages that started at a position index's block instead of walking every skipped document.",
                api.pages()::started);
        metrics.counter("weft_position_index_builds_total", "Position indexes built (one walk of a collection in one sort order).",
                api.pages()::builds);
        streams = new StreamHub(store.eventLog(), api.json(), settings, api.policies());
        metrics.gauge("weft_open_connections", "Open HTTP connections (max-connections bounds them).",
                connections::getConnections);
        metrics.gauge("weft_stream_clients", "Open change stream subscriptions, WebSocket and SSE.",
                streams::subscribers);
        streams.watchAccess(() -> security.usersVersion() + authorizer.rulesVersion()); // both only grow
        ServerWebSocketContainer webSockets = ServerWebSocketContainer.ensure(server);
        webSockets.setMaxOutgoingFrames(MAX_OUTGOING_FRAMES);
        webSockets.setMaxTextMessageSize(MAX_INCOMING_MESSAGE);
        webSockets.setIdleTimeout(Duration.ofMillis(Math.max(settings.idleTimeoutMs(), 2 * settings.streamHeartbeatMs())));
        StreamEndpoints streamEndpoints = new StreamEndpoints(api, streams, webSockets, authorizer,
                WebSocketSender.Kind.atStartup());
        sessions = api.sessions();
        metrics.gauge("weft_open_transactions", "Transactions open now (max-open-txns bounds them).", sessions::openTxns);
        routes = Routes.of(Endpoints.of(api, metrics, streamEndpoints,
                new AggregationEndpoints(api, authorizer), new TokenEndpoints(security, api.json())));
        RequestPipeline pipeline = new RequestPipeline(routes,
                security.authenticator(), authorizer, api.policies(), schemas.around(api.policies()), metrics,
                new Cors(settings.auth().corsOrigins(), settings.auth().corsMaxAgeS()), settings.maxBodyBytes(),
                requestThreads, api);
        server.setHandler(new GracefulHandler(pipeline));
        server.setErrorHandler(new JsonErrorPages());
        server.setStopTimeout(STOP_GRACE_MS);
        server.setStopAtShutdown(false);
    }

    private static HttpConfiguration https(HttpConfiguration http) {
        HttpConfiguration https = new HttpConfiguration(http);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        return https;
    }

    private ServerConnector tls(Settings settings, HeaderDeadline https) {
        AuthSettings auth = settings.auth();
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        try {
            byte[] random = new byte[18];
            new SecureRandom().nextBytes(random);
            String password = Base64.getEncoder().encodeToString(random); // guards nothing: the store never leaves memory
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("weft", Pem.privateKey(auth.tlsKeyFile().orElseThrow()), password.toCharArray(),
                    Pem.certificates(auth.tlsCertFile().orElseThrow()).toArray(Certificate[]::new));
            ssl.setKeyStore(keys);
            ssl.setKeyStorePassword(password);
            ssl.setKeyManagerPassword(password);
        } catch (java.security.GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("cannot use tls-cert-file/tls-key-file: " + e.getMessage(), e);
        }
        ServerConnector tls = new ServerConnector(server, 1, 1, new SslConnectionFactory(ssl, "http/1.1"), https);
        tls.setHost(settings.bind());
        tls.setPort(auth.tlsPort());
        tls.setIdleTimeout(settings.idleTimeoutMs());
        tls.setAcceptQueueSize(1024);
        server.addConnector(tls);
        return tls;
    }

    /** The route table this server answers by. */
    Routes routes() {
        return routes;
    }

    public void start() throws Exception {
        server.start();
        ttl.start();
    }

    /** The port actually bound (useful with port 0 in tests). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The change-stream engine. */
    public StreamHub streams() {
        return streams;
    }

    /** The HTTPS port actually bound, when TLS is enabled. */
    public Optional<Integer> tlsPort() {
        return tlsConnector.map(ServerConnector::getLocalPort);
    }

    /** Ends the TTL reaper and the streams first (an open SSE response would hold the graceful stop), then the listener. */
    @Override
    public void close() throws Exception {
        ttl.close();
        streams.close();
        server.stop();
        sessions.close(); // after the requests: their transactions release what they hold before the store closes
    }
}
