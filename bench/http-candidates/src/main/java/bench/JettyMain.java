package bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Jetty 12.1 core handler. Acceptor and selector run on QueuedThreadPool's platform threads; the
 * handler is Handler.Abstract, whose InvocationType is BLOCKING, so Jetty dispatches it to the
 * pool's virtual-thread executor. The handler writes with a blocking call (Blocker), as Weft's
 * plain blocking code would.
 *
 * <p>With -Dbench.jetty.nonblocking=true (candidate "jetty-nb", a diagnostic only: Weft's
 * handlers block) the handler is Handler.Abstract.NonBlocking, runs on the selector thread and
 * writes asynchronously: the difference to the default is the cost of the hand-off to a virtual
 * thread per request.
 */
public final class JettyMain {
    public static void main(String[] args) throws Exception {
        int port = Common.port(args);
        byte[] body = Common.payload(args);

        QueuedThreadPool pool = new QueuedThreadPool(16, 4); // platform threads: acceptor, selector, housekeeping
        pool.setName("jetty");
        pool.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("jetty-v"));
        Server server = new Server(pool);

        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setIdleTimeout(Duration.ofHours(1).toMillis());
        connector.setAcceptQueueSize(4096);
        server.addConnector(connector);

        boolean nonBlocking = Boolean.getBoolean("bench.jetty.nonblocking");
        Handler.Abstract handler = nonBlocking ? new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Common.countThread();
                byte[] out = "/threads".equals(request.getHttpURI().getPath()) ? Common.threadsReport() : body;
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, out.length);
                response.write(true, ByteBuffer.wrap(out), callback);
                return true;
            }
        } : new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                Common.countThread();
                byte[] out = "/threads".equals(request.getHttpURI().getPath()) ? Common.threadsReport() : body;
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, out.length);
                try (Blocker.Callback blocker = Blocker.callback()) {
                    response.write(true, ByteBuffer.wrap(out), blocker);
                    blocker.block();
                }
                callback.succeeded();
                return true;
            }
        };
        server.setHandler(handler);
        server.start();
        System.err.println("jetty handler invocation type: " + handler.getInvocationType()
                + ", virtual threads executor: " + pool.getVirtualThreadsExecutor());
        Common.started("jetty " + Server.getVersion(), port);
        server.join();
    }
}
