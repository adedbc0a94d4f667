package dev.weft.http;

import dev.weft.core.Settings;
import dev.weft.observe.Metrics;
import dev.weft.security.Authenticator;
import dev.weft.security.Authorizer;
import dev.weft.store.Store;
import java.util.concurrent.Executors;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Weft's HTTP listener on Jetty 12 core (chosen by measurement: docs/decisions/0001-http-server.md).
 * Selectors and acceptors stay on a few platform threads; every request runs on its own virtual
 * thread, so handlers block. Open connections are capped ({@code max-connections}) and idle ones
 * closed ({@code idle-timeout-ms}). Stopping is graceful: the listener closes, in-flight requests
 * finish (up to a grace period), then the store closes.
 */
public final class WeftServer implements AutoCloseable {
    private static final long STOP_GRACE_MS = 10_000;

    private final Server server;
    private final ServerConnector connector;

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
        RequestPipeline pipeline = new RequestPipeline(Routes.of(Endpoints.of(api, metrics)),
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

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
