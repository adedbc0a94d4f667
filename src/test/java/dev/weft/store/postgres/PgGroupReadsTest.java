package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Single-document reads grouped into one statement ({@link PgGroupReader}), on two nodes over one
 * schema: a read on node A sees the write node B acknowledged just before it was asked for, in
 * groups as alone; a read of a collection another node dropped (and this node's catalog still
 * names) is 404, not 503; outdated reads without a replica are grouped too.
 */
class PgGroupReadsTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("gr", "docs");
    private static final int DOCS = 32;

    private PgStores.Pair nodes;

    @BeforeEach
    void open() {
        nodes = PgStores.pair(NS);
        for (int i = 0; i < DOCS; i++) {
            nodes.b().write(new WriteOp.InsertMany(NS, List.of((ObjectNode) JSON.parse("{\"_id\":" + i + ",\"n\":0}", "doc"))));
        }
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void aReadOnOneNodeSeesTheWriteAnotherNodeAcknowledgedBeforeIt() throws Exception {
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "update"), QueryLimits.defaults());
        long before = nodes.a().groupedReads();
        for (int round = 1; round <= 5; round++) {
            int expected = round;
            List<Future<Long>> seen = new ArrayList<>();
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < DOCS; i++) {
                    JsonNode id = JSON.parse(Integer.toString(i), "id");
                    seen.add(pool.submit(() -> {
                        assertThat(nodes.b().write(new WriteOp.UpdateOne(NS, id, inc, WriteMode.UPDATE, Optional.empty()))
                                .outcome()).isEqualTo(Outcome.UPDATED);
                        return n(nodes.a().get(NS, id, ReadMode.SINGLE));
                    }));
                }
                for (Future<Long> f : seen) {
                    assertThat(f.get()).isEqualTo(expected);
                }
            }
        }
        assertThat(nodes.a().groupedReads() - before).as("reads answered by node A's groups").isEqualTo(5L * DOCS);
    }

    @Test
    void concurrentReadsShareStatementsAndAMissingDocumentIsEmpty() throws Exception {
        nodes.a().gatherNextReads(DOCS + 1, 20_000);
        long statements = nodes.a().groupReadStatements();
        List<Future<Optional<StoredDocument>>> got = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i <= DOCS; i++) {
                JsonNode id = JSON.parse(Integer.toString(i), "id");
                got.add(pool.submit(() -> nodes.a().get(NS, id, ReadMode.OUTDATED)));
            }
            for (int i = 0; i < DOCS; i++) {
                JsonNode doc = JSON.parse(got.get(i).get().orElseThrow().json(), "doc");
                assertThat(doc.get("_id").asInt()).isEqualTo(i);
            }
            assertThat(got.get(DOCS).get()).isEmpty();
        }
        assertThat(nodes.a().groupReadStatements() - statements).as("one statement for the group").isEqualTo(1);
    }

    @Test
    void aReadOfACollectionAnotherNodeDroppedIs404() {
        JsonNode id = JSON.parse("1", "id");
        assertThat(nodes.a().get(NS, id, ReadMode.SINGLE)).isPresent();
        nodes.b().dropCollection(NS, Optional.empty());
        assertThatThrownBy(() -> nodes.a().get(NS, id, ReadMode.SINGLE))
                .isInstanceOfSatisfying(WeftException.class, e -> assertThat(e.status()).isEqualTo(404));
    }

    private static long n(Optional<StoredDocument> doc) {
        return JSON.parse(doc.orElseThrow().json(), "doc").get("n").asLong();
    }
}
