package dev.weft.http;

import dev.weft.core.Settings;
import dev.weft.observe.Metrics;
import dev.weft.security.Authenticator;
import dev.weft.security.Authorizer;
import dev.weft.store.Store;
import dev.weft.stream.StreamHub;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * Weft's HTTP listener on Jetty 12 core (chosen by measurement: docs/decisions/0001-http-server.md).
 * Selectors and acceptors stay on a few platform threads; every request runs on its own virtual
 * thread, so handlers block. Open connections are capped ({@code max-connections}) and idle ones
 * closed ({@code idle-timeout-ms}). Stopping is graceful: the listener closes, in-flight requests
 * finish (up to a grace period), then the store closes.
 */
public final class WeftServer implements AutoCloseable {
    private static final long STOP_GRACE_MS = 10_000;

    /** The hub keeps one write in flight per client, plus a ping or a close frame. */
    private static final int MAX_OUTGOING_FRAMES = 8;
    /** Stream clients send nothing but control frames; a larger message is refused. */
    private static final int MAX_INCOMING_MESSAGE = 4096;

    private final Server server;
    private final ServerConnector connector;
    private final Optional<StreamHub> streams;

    public WeftServer(Settings settings, Store store, Authenticator authenticator, Authorizer authorizer) {
        QueuedThreadPool threads = new QueuedThreadPool(16, 4);
        threads.setName("weft-io");
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("weft-req-", 0).factory()));
        server = new Server(threads);

        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(settings.bind());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeoutMs());
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.addBean(new ConnectionLimit(settings.maxConnections(), connector));

        Metrics metrics = new Metrics();
        Api api = Api.of(store, settings);
        streams = store.eventLog().map(log -> new StreamHub(log, api.json(), settings));
        ServerWebSocketContainer webSockets = ServerWebSocketContainer.ensure(server);
        webSockets.setMaxOutgoingFrames(MAX_OUTGOING_FRAMES);
        webSockets.setMaxTextMessageSize(MAX_INCOMING_MESSAGE);
        webSockets.setIdleTimeout(Duration.ofMillis(Math.max(settings.idleTimeoutMs(), 2 * settings.streamHeartbeatMs())));
        StreamEndpoints streamEndpoints = new StreamEndpoints(api, streams, webSockets);
        RequestPipeline pipeline = new RequestPipeline(Routes.of(Endpoints.of(api, metrics, streamEndpoints)),
                authenticator, authorizer, metrics, settings.maxBodyBytes());
        server.setHandler(new GracefulHandler(pipeline));
        server.setStopTimeout(STOP_GRACE_MS);
        server.setStopAtShutdown(false);
    }

    public void start() throws Exception {
        server.start();
    }

    /** The port actually bound (useful with port 0 in tests). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The change-stream engine, when the store keeps an event log. */
    public Optional<StreamHub> streams() {
        return streams;
    }

    /** Ends the streams first (an open SSE response would hold the graceful stop), then the listener. */
    @Override
    public void close() throws Exception {
        streams.ifPresent(StreamHub::close);
        server.stop();
    }
}
