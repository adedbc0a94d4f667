package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.SortPosition;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.Namespace;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the read path remembers between requests ({@link ReadMemo}, the pooled cursor ciphers)
 * changes the moment what it was derived from changes: a collection's properties, its existence.
 * Runs on both stores (PostgreSQL bumps versions from its catalog notifications).
 */
class ReadMemoTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "memo");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void aChangedReadModeOrDurabilityPropertyIsSeenByTheNextRead() throws Exception {
        ReadMemo memo = Api.of(weft.store, weft.settings, DocumentPolicy.Lookup.NONE).memo();
        Namespace ns = new Namespace("db", "memo");
        assertThat(memo.collection(weft.store, ns).orElseThrow().readMode()).isEmpty();

        assertThat(weft.put("/db/memo", "{\"readMode\":\"outdated\",\"durability\":\"soft\"}").statusCode()).isEqualTo(200);
        ReadMemo.Facts outdated = memo.collection(weft.store, ns).orElseThrow();
        assertThat(outdated.readMode()).contains("outdated");
        assertThat(outdated.durability()).contains("soft");

        assertThat(weft.put("/db/memo", "{\"readMode\":\"single\"}").statusCode()).isEqualTo(200);
        ReadMemo.Facts single = memo.collection(weft.store, ns).orElseThrow();
        assertThat(single.readMode()).contains("single");
        assertThat(single.durability()).isEmpty();

        assertThat(weft.put("/db/memo", "{}").statusCode()).isEqualTo(200);
        assertThat(memo.collection(weft.store, ns).orElseThrow().readMode()).isEmpty();
    }

    @Test
    void aDroppedCollectionIsMissingAtOnceAndARecreatedOneIsThereAtOnce() throws Exception {
        weft.createCollection("db", "gone");
        assertThat(weft.post("/db/gone", "{\"_id\":1}").statusCode()).isEqualTo(201);
        assertThat(weft.get("/db/gone").body()).contains("\"_id\":1");
        assertThat(weft.get("/db/gone/_size").body()).isEqualTo("{\"_size\":1}");
        String etag = weft.put("/db/gone", "{}").headers().firstValue("ETag").orElseThrow();

        assertThat(weft.delete("/db/gone", "If-Match", etag).statusCode()).isEqualTo(204);
        assertThat(weft.get("/db/gone").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/gone/_size").statusCode()).isEqualTo(404);

        weft.createCollection("db", "gone");
        assertThat(weft.get("/db/gone").body()).isEqualTo("[]");
        assertThat(weft.get("/db/gone/_size").body()).isEqualTo("{\"_size\":0}");
    }

    @Test
    void everySealedTokenIsDistinctAndOpensToItsPosition() {
        CursorTokens tokens = new CursorTokens(Optional.of("a shared secret of the nodes"));
        SortPosition position = new SortPosition(new byte[] {1, 2, 3}, new byte[] {4, 5});
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String token = tokens.seal(position, "query");
            assertThat(seen.add(token)).as("a nonce was reused").isTrue();
            assertThat(tokens.open(token, "query")).isEqualTo(position);
        }
        // another process sharing the secret opens them too, and draws its own nonces
        CursorTokens other = new CursorTokens(Optional.of("a shared secret of the nodes"));
        assertThat(other.open(tokens.seal(position, "query"), "query")).isEqualTo(position);
        assertThat(seen.add(other.seal(position, "query"))).isTrue();
    }
}
