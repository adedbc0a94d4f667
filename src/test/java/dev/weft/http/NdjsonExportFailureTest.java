package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import dev.weft.store.StoredDocument;
import dev.weft.store.Store;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An ndjson export that fails must never look complete: before its first byte it answers what
 * the JSON list answers; after it, the response is cut (no terminating chunk). The failure is
 * injected between the server and its store, where a store error mid-scan would come from.
 */
class NdjsonExportFailureTest {
    static final int DOCUMENTS = 3000;
    /** The scan fails after handing over this many documents; -1: it does not fail. */
    static final AtomicInteger failAfter = new AtomicInteger(-1);
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer(NdjsonExportFailureTest::failingScans);
        weft.createCollection("db", "export");
        String lines = IntStream.range(0, DOCUMENTS)
                .mapToObj(i -> "{\"_id\":" + i + ",\"text\":\"" + "t".repeat(80) + "\"}")
                .collect(Collectors.joining("\n"));
        HttpResponse<String> r = weft.client.send(weft.request("/db/export").header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(lines)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.body()).startsWith("{\"inserted\":" + DOCUMENTS + ",");
    }

    @AfterEach
    void noFault() {
        failAfter.set(-1);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** The store, with {@code find} failing after {@link #failAfter} documents. */
    static Store failingScans(Store real) {
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
            if (method.getName().equals("find") && failAfter.get() >= 0) {
                int last = args.length - 1;
                @SuppressWarnings("unchecked")
                Consumer<StoredDocument> sink = (Consumer<StoredDocument>) args[last];
                AtomicInteger handed = new AtomicInteger();
                args[last] = (Consumer<StoredDocument>) doc -> {
                    if (handed.getAndIncrement() == failAfter.get()) {
                        throw new WeftException(503, "injected: the store failed mid-scan");
                    }
                    sink.accept(doc);
                };
            }
            try {
                return method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    static HttpResponse<String> export(String query) throws Exception {
        return weft.get("/db/export" + query, "Accept", "application/x-ndjson");
    }

    @Test
    void withoutAFaultEveryDocumentIsExported() throws Exception {
        HttpResponse<String> r = export("?sort=" + q("{\"_id\":1}"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body().lines().count()).isEqualTo(DOCUMENTS);
    }

    @Test
    void aFailureBeforeTheFirstByteAnswersWhatTheJsonListAnswers() throws Exception {
        failAfter.set(0);
        HttpResponse<String> list = weft.get("/db/export?pagesize=10&filter=" + q("{\"_id\":{\"$gte\":0}}"));
        HttpResponse<String> ndjson = export("?filter=" + q("{\"_id\":{\"$gte\":0}}"));
        assertThat(list.statusCode()).isEqualTo(503);
        assertThat(ndjson.statusCode()).isEqualTo(503);
        assertThat(ndjson.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(ndjson.body()).isEqualTo(list.body())
                .isEqualTo("{\"http status code\":503,\"http status description\":\"Service Unavailable\","
                        + "\"message\":\"injected: the store failed mid-scan\"}");
        failAfter.set(50); // still inside the first output buffer: nothing has left yet
        HttpResponse<String> early = export("?filter=" + q("{\"_id\":{\"$gte\":1}}"));
        assertThat(early.statusCode()).isEqualTo(503);
        assertThat(early.body()).isEqualTo(list.body());
    }

    @Test
    void aFailureAfterTheFirstByteCutsTheResponseSoItCannotPassForComplete() throws Exception {
        failAfter.set(2000); // ~200 KB in: several buffers are on the wire
        assertThatThrownBy(() -> export("?filter=" + q("{\"_id\":{\"$gte\":2}}")))
                .isInstanceOf(IOException.class);
        assertThat(weft.get("/ping").statusCode()).as("the server goes on").isEqualTo(200);
    }
}
