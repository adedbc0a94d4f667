package bench;

import java.time.Duration;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;

/** Helidon 4 SE: one virtual thread per connection, handlers run on it, writes block it. */
public final class HelidonMain {
    public static void main(String[] args) throws Exception {
        int port = Common.port(args);
        byte[] body = Common.payload(args);
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(port)
                .backlog(4096)
                .idleConnectionTimeout(Duration.ofHours(1))
                .routing(r -> r
                        .get("/threads", (req, res) -> {
                            Common.countThread();
                            res.header(HeaderNames.CONTENT_TYPE, "application/json");
                            res.send(Common.threadsReport());
                        })
                        .get("/", (req, res) -> {
                            Common.countThread();
                            res.header(HeaderNames.CONTENT_TYPE, "application/json");
                            res.send(body);
                        }))
                .build()
                .start();
        Common.started("helidon " + io.helidon.common.Version.VERSION, server.port());
        Thread.currentThread().join();
    }
}
