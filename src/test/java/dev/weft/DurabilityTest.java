package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An acknowledged write survives kill -9: concurrent writers insert until the server is killed
 * mid-load; after a restart on the same data every id that got a 201 must be there.
 */
class DurabilityTest {
    private static final int WRITERS = 32;

    @Test
    void everyAcknowledgedWriteSurvivesKill9() throws Exception {
        Path data = Files.createTempDirectory("weft-kill");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try (WeftProcess weft = new WeftProcess(data)) {
            send(client, "PUT", weft.base() + "/db", null);
            send(client, "PUT", weft.base() + "/db/acks", null);
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; running.get(); i++) {
                        String id = "w" + writer + "-" + i;
                        try {
                            HttpResponse<String> r = send(client, "POST", weft.base() + "/db/acks",
                                    "{\"_id\":\"" + id + "\",\"payload\":\"" + "x".repeat(200) + "\"}");
                            if (r.statusCode() == 201) {
                                acknowledged.add(id);
                            }
                        } catch (Exception e) {
                            return; // the server is gone
                        }
                    }
                }));
            }
            while (acknowledged.size() < 2000) {
                Thread.sleep(20);
            }
            weft.kill();
            running.set(false);
            for (Thread t : writers) {
                t.join(Duration.ofSeconds(30));
            }
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(2000);
        try (WeftProcess again = new WeftProcess(data)) {
            List<String> missing = new ArrayList<>();
            for (String id : acknowledged) {
                if (send(client, "GET", again.base() + "/db/acks/" + id, null).statusCode() != 200) {
                    missing.add(id);
                }
            }
            assertThat(missing).as("acknowledged but lost after kill -9").isEmpty();
        }
    }

    static HttpResponse<String> send(HttpClient client, String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Authorization", WeftProcess.ADMIN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
