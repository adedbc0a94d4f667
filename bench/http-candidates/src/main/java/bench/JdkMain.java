package bench;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/**
 * The JDK's com.sun.net.httpserver: one platform dispatcher thread owns the selector, exchanges run
 * on a virtual-thread-per-task executor. Run with -Dsun.net.httpserver.idleInterval and
 * -Dsun.net.httpserver.maxIdleConnections raised, or it closes idle connections (30 s, 200 max).
 */
public final class JdkMain {
    public static void main(String[] args) throws Exception {
        int port = Common.port(args);
        byte[] body = Common.payload(args);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 4096);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            Common.countThread();
            byte[] out = "/threads".equals(exchange.getRequestURI().getPath()) ? Common.threadsReport() : body;
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        });
        server.start();
        Common.started("jdk-httpserver", port);
    }
}
