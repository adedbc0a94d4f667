package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 17, item 1: round trips per write, counted on the wire ({@link RoundTripProxy}): a
 * single-document insert (with its index rows and its change event) is one; a replace, an update
 * by operators and a delete one when the node knows the document's stored bytes (it wrote or read
 * it last), else two (the locked read, then the rest with COMMIT); a bulk insert of many
 * documents one; and no write locks a catalog row. A document changed by another node meanwhile
 * costs the failed burst, then the write reads it and answers from what is stored. Concurrent
 * reads by id are one round trip in all (a group's statement), and so is a group of updates of
 * documents the node knows (one burst, COMMIT included).
 */
class PgRoundTripsTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("rt", "docs");
    /** A transaction that wrote a document table. */
    private static final String WROTE_DOCUMENTS = "(INSERT INTO|UPDATE|DELETE FROM) d\\d+";

    private String schema;
    private RoundTripProxy proxy;
    private PostgresStore store;
    /** Another node on the same schema, not counted. */
    private PostgresStore other;

    @BeforeEach
    void open() throws Exception {
        schema = PgTesting.freshSchema();
        proxy = new RoundTripProxy(PgTesting.baseUrl());
        store = new PostgresStore(Settings.parse(new String[] {"--store", proxy.url(schema), "--pg-pool-size", "4"}, Map.of()), JSON);
        store.putDatabase("rt", obj("{}"), Optional.empty());
        store.putCollection(NS, obj("{}"), Optional.empty());
        store.createIndex(NS, new IndexSpec("a_1", List.of(new IndexField("a", 1)), false));
        store.createIndex(NS, new IndexSpec("b_1", List.of(new IndexField("b", 1)), true));
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":0,\"a\":0,\"b\":0}")))); // warms the pool
        other = PgStores.open(schema);
    }

    @AfterEach
    void close() throws Exception {
        other.close();
        store.close();
        proxy.close();
        PgTesting.dropSchema(schema);
    }

    @Test
    void aSingleDocumentInsertWithIndexRowsAndItsEventIsOneRoundTrip() {
        proxy.reset();
        assertThat(store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1,\"a\":1,\"b\":1}")))).outcome())
                .isEqualTo(Outcome.CREATED);
        List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
        assertThat(writes).hasSize(1);
        assertThat(writes.getFirst().roundTrips()).isEqualTo(1);
        assertThat(writes.getFirst().sent()).contains("INSERT INTO weft_events").contains("COMMIT").doesNotContain("FOR SHARE");
    }

    @Test
    void replaceUpdateAndDeleteOfADocumentTheNodeWroteAreOneRoundTripEach() {
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":2,\"a\":2,\"b\":2}"))));
        List<RoundTripProxy.Transaction> writes = replaceUpdateAndDelete(2, 2, 2);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(1, 1, 1);
        assertThat(writes).allSatisfy(t -> assertThat(t.sent()).contains("'version'").contains("COMMIT").doesNotContain("FOR SHARE"));
    }

    @Test
    void anUpdateOfADocumentTheNodeReadIsOneRoundTrip() {
        other.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":5,\"a\":5,\"b\":5}"))));
        assertThat(store.get(NS, JSON.parse("5", "id"), dev.weft.core.ReadMode.SINGLE)).isPresent();
        proxy.reset();
        Update set = Update.parse(JSON.parse("{\"$set\":{\"a\":6}}", "update"), QueryLimits.defaults());
        assertThat(store.write(new WriteOp.UpdateOne(NS, JSON.parse("5", "id"), set, WriteMode.UPDATE, Optional.empty()))
                .outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(1);
    }

    @Test
    void aDocumentChangedByAnotherNodeIsReadAgainAndItsStateDecides() {
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":6,\"a\":1,\"b\":6}"))));
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"a\":1}}", "update"), QueryLimits.defaults());
        assertThat(other.write(new WriteOp.UpdateOne(NS, JSON.parse("6", "id"), inc, WriteMode.UPDATE, Optional.empty())).ok())
                .isTrue();
        proxy.reset();
        // the node assumes a=1; the stored document is a=2
        var r = store.write(new WriteOp.UpdateOne(NS, JSON.parse("6", "id"), inc, WriteMode.UPDATE, Optional.empty()));
        assertThat(r.outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(JSON.parse(store.get(NS, JSON.parse("6", "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json(), "doc")
                .get("a").asInt()).isEqualTo(3);
        // the assumed burst failed its check (then its ROLLBACK), then the locked read and the burst
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(2, 2);
        // (both on the group writer's connection: the second reads every document of the group, assuming none)
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).filteredOn(t -> t.sent().contains("'version'")).hasSize(1)
                .allSatisfy(t -> assertThat(t.sent()).contains("ROLLBACK"));
        // the node found its copy stale, so it no longer guesses: its next write reads the document, and no check fails
        proxy.reset();
        assertThat(store.write(new WriteOp.UpdateOne(NS, JSON.parse("6", "id"), inc, WriteMode.UPDATE, Optional.empty())).outcome())
                .isEqualTo(Outcome.UPDATED);
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(2);
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).noneSatisfy(t -> assertThat(t.sent()).contains("'version'"));
    }

    @Test
    void aRefusalMadeOnAnAssumedDocumentIsCheckedOnTheStoredOne() {
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":7,\"a\":1,\"b\":7}"))));
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"a\":1}}", "update"), QueryLimits.defaults());
        String otherEtag = other.write(new WriteOp.UpdateOne(NS, JSON.parse("7", "id"), inc, WriteMode.UPDATE, Optional.empty()))
                .etag().orElseThrow();
        // If-Match names the stored etag, not the one the node assumes: the write reads and succeeds
        Update set = Update.parse(JSON.parse("{\"$set\":{\"c\":1}}", "update"), QueryLimits.defaults());
        var updated = store.write(new WriteOp.UpdateOne(NS, JSON.parse("7", "id"), set, WriteMode.UPDATE, Optional.of(otherEtag)));
        assertThat(updated.outcome()).isEqualTo(Outcome.UPDATED);
        otherEtag = other.write(new WriteOp.UpdateOne(NS, JSON.parse("7", "id"), inc, WriteMode.UPDATE, Optional.empty()))
                .etag().orElseThrow();
        var deleted = store.write(new WriteOp.DeleteOne(NS, JSON.parse("7", "id"), Optional.of(otherEtag)));
        assertThat(deleted.outcome()).isEqualTo(Outcome.DELETED);
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":8,\"a\":1,\"b\":8}"))));
        other.write(new WriteOp.DeleteOne(NS, JSON.parse("8", "id"), Optional.empty()));
        // assumed to exist, so an insert-only replace would be a 409: it is stored nowhere, so it is created
        var created = store.write(new WriteOp.Replace(NS, obj("{\"_id\":8,\"a\":2}"), WriteMode.INSERT, Optional.empty()));
        assertThat(created.outcome()).isEqualTo(Outcome.CREATED);
    }

    @Test
    void replaceUpdateAndDeleteOfADocumentTheNodeDoesNotKnowAreTwoRoundTripsEach() {
        other.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":2,\"a\":2,\"b\":2}"), obj("{\"_id\":3,\"a\":3,\"b\":3}"),
                obj("{\"_id\":4,\"a\":4,\"b\":4}"))));
        List<RoundTripProxy.Transaction> writes = replaceUpdateAndDelete(2, 3, 4);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(2, 2, 2);
        assertThat(writes).allSatisfy(t -> assertThat(t.sent()).doesNotContain("FOR SHARE").doesNotContain("'version'"));
    }

    @Test
    void severalUpsertsAreTwoRoundTripsInAll() {
        store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":10,\"a\":1,\"b\":10}"))));
        proxy.reset();
        var results = store.writeAll(List.of(
                new WriteOp.Replace(NS, obj("{\"_id\":10,\"a\":2,\"b\":110}"), WriteMode.UPSERT, Optional.empty()),
                new WriteOp.Replace(NS, obj("{\"_id\":11,\"a\":1,\"b\":11}"), WriteMode.UPSERT, Optional.empty()),
                new WriteOp.DeleteOne(NS, JSON.parse("0", "id"), Optional.empty()),
                new WriteOp.Replace(NS, obj("{\"_id\":12,\"b\":12}"), WriteMode.UPSERT, Optional.empty())));
        assertThat(results).extracting(r -> r.outcome())
                .containsExactly(Outcome.UPDATED, Outcome.CREATED, Outcome.DELETED, Outcome.CREATED);
        assertThat(proxy.transactions(WROTE_DOCUMENTS)).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(2);
        assertThat(store.get(NS, JSON.parse("0", "id"), dev.weft.core.ReadMode.SINGLE)).isEmpty();
        assertThat(new String(store.get(NS, JSON.parse("10", "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json(),
                java.nio.charset.StandardCharsets.UTF_8)).contains("\"b\":110");
    }

    @Test
    void aBatchWithAFailingOpIsRunAgainEachOpInASavepointAndKeepsTheOthers() {
        var results = store.writeAll(List.of(
                new WriteOp.Replace(NS, obj("{\"_id\":13,\"b\":13}"), WriteMode.UPSERT, Optional.empty()),
                new WriteOp.Replace(NS, obj("{\"_id\":14,\"b\":0}"), WriteMode.UPSERT, Optional.empty()),
                new WriteOp.Replace(NS, obj("{\"_id\":0,\"b\":15}"), WriteMode.INSERT, Optional.empty()),
                new WriteOp.Replace(NS, obj("{\"_id\":16,\"b\":16}"), WriteMode.UPSERT, Optional.empty())));
        assertThat(results).extracting(r -> r.outcome())
                .containsExactly(Outcome.CREATED, Outcome.CONFLICT, Outcome.CONFLICT, Outcome.CREATED);
        assertThat(results.get(1).message().orElseThrow()).contains("b_1");
        assertThat(results.get(2).message().orElseThrow()).contains("_id");
        for (String id : List.of("13", "16")) {
            assertThat(store.get(NS, JSON.parse(id, "id"), dev.weft.core.ReadMode.SINGLE)).isPresent();
        }
        assertThat(store.get(NS, JSON.parse("14", "id"), dev.weft.core.ReadMode.SINGLE)).isEmpty();
    }

    @Test
    void aBulkUpdateByFilterReadsAndLocksItsDocumentsInOneStatement() {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 300; i < 340; i++) {
            docs.add(obj("{\"_id\":" + i + ",\"a\":7,\"b\":" + i + "}"));
        }
        store.write(new WriteOp.InsertMany(NS, docs));
        proxy.reset();
        Update set = Update.parse(JSON.parse("{\"$set\":{\"c\":1}}", "update"), QueryLimits.defaults());
        var filter = dev.weft.query.Filter.parse(JSON.parse("{\"a\":7}", "filter"), QueryLimits.defaults());
        assertThat(store.write(new WriteOp.UpdateMany(NS, filter, set)).count()).isEqualTo(40);
        // the plan's probe of index a_1, the candidates, the locked read of all 40, then their rows with
        // COMMIT (was one locked read per document: 43)
        List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).as(writes.toString()).containsExactly(4);
        assertThat(writes.getFirst().sent()).contains("= ANY(").contains("FOR UPDATE");
        assertThat(store.write(new WriteOp.DeleteMany(NS, filter)).count()).isEqualTo(40);
    }

    @Test
    void concurrentReadsOfDocumentsAreOneRoundTripInAll() throws Exception {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 400; i < 408; i++) {
            docs.add(obj("{\"_id\":" + i + ",\"a\":" + i + ",\"b\":" + i + "}"));
        }
        store.write(new WriteOp.InsertMany(NS, docs));
        proxy.reset();
        store.gatherNextReads(docs.size(), 20_000);
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<?>> reads = new ArrayList<>();
            for (int i = 400; i < 408; i++) {
                var id = JSON.parse(Integer.toString(i), "id");
                reads.add(pool.submit(() -> assertThat(store.get(NS, id, dev.weft.core.ReadMode.SINGLE)).isPresent()));
            }
            for (var f : reads) {
                f.get();
            }
        }
        // was one round trip (one statement) per read: 8
        List<RoundTripProxy.Transaction> read = proxy.transactions("FROM d\\d+ WHERE id");
        assertThat(read).extracting(RoundTripProxy.Transaction::roundTrips).as(read.toString()).containsExactly(1);
        assertThat(read.getFirst().sent()).contains("= ANY(");
    }

    @Test
    void aGroupOfUpdatesOfDocumentsTheNodeKnowsIsOneRoundTripInAll() throws Exception {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 500; i < 508; i++) {
            docs.add(obj("{\"_id\":" + i + ",\"a\":" + i + ",\"b\":" + i + "}"));
        }
        for (ObjectNode doc : docs) {
            store.write(new WriteOp.InsertMany(NS, List.of(doc))); // each known to the node
        }
        proxy.reset();
        long grouped = store.groupedWrites();
        store.gatherNextGroup(docs.size(), 20_000);
        incrementConcurrently(java.util.stream.IntStream.range(500, 508).boxed().toList());
        // was a round trip for its first savepoint, one per write, then its events with COMMIT: 10
        List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).as(writes.toString()).containsExactly(1);
        assertThat(writes.getFirst().sent()).contains("COMMIT").doesNotContain("SAVEPOINT");
        assertThat(store.groupedWrites() - grouped).isEqualTo(docs.size());
    }

    @Test
    void aGroupChecksAndUpdatesAllItsDocumentsInOneStatementEachSoItsBurstIsOneTextWhateverItsSize() throws Exception {
        for (int size : List.of(3, 6)) {
            List<Integer> keys = java.util.stream.IntStream.range(700 + 10 * size, 700 + 11 * size).boxed().toList();
            for (int key : keys) {
                store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":" + key + ",\"a\":" + key + ",\"b\":" + key + "}"))));
            }
            proxy.reset();
            store.gatherNextGroup(size, 20_000);
            incrementConcurrently(keys);
            List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
            assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).as(writes.toString()).containsExactly(1);
            String sent = writes.getFirst().sent();
            // was a check and an UPDATE per document: a text that differed with the group's size,
            // so PostgreSQL parsed and planned every statement of every burst
            assertThat(sent.split("UPDATE d", -1)).as(sent).hasSize(2);
            assertThat(sent.split("'version'", -1)).as(sent).hasSize(2);
            for (int key : keys) {
                byte[] stored = other.get(NS, JSON.parse(Integer.toString(key), "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json();
                assertThat(JSON.parseObject(stored, "stored").get("a").asInt()).isEqualTo(key + 1);
            }
        }
    }

    @Test
    void aGroupOfUpdatesOfDocumentsTheNodeDoesNotKnowIsTwoRoundTripsInAllEvenWithTwoUpdatesOfOneDocument() throws Exception {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 600; i < 604; i++) {
            docs.add(obj("{\"_id\":" + i + ",\"a\":" + i + ",\"b\":" + i + "}"));
        }
        other.write(new WriteOp.InsertMany(NS, docs)); // unknown to the counted node
        proxy.reset();
        store.gatherNextGroup(2 * docs.size(), 20_000);
        incrementConcurrently(List.of(600, 601, 602, 603, 600, 601, 602, 603));
        // was a locked read per write (the second of a document read what the first wrote), then the rest: 16
        List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).as(writes.toString()).containsExactly(2);
        assertThat(writes.getFirst().sent()).contains("= ANY(").doesNotContain("'version'").doesNotContain("SAVEPOINT");
        for (int i = 600; i < 604; i++) {
            byte[] stored = other.get(NS, JSON.parse(Integer.toString(i), "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json();
            assertThat(JSON.parseObject(stored, "stored").get("a").asInt()).isEqualTo(i + 2);
        }
    }

    @Test
    void aBulkInsertOfManyDocumentsIsOneRoundTrip() {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 100; i < 300; i++) {
            docs.add(obj("{\"_id\":" + i + ",\"a\":" + i + ",\"b\":" + i + "}"));
        }
        proxy.reset();
        assertThat(store.write(new WriteOp.InsertMany(NS, docs)).count()).isEqualTo(200);
        List<RoundTripProxy.Transaction> writes = proxy.transactions(WROTE_DOCUMENTS);
        assertThat(writes).extracting(RoundTripProxy.Transaction::roundTrips).containsExactly(1);
    }

    @Test
    void aRefusedInsertIsRunAgainStatementByStatementForItsExactAnswer() {
        proxy.reset();
        var r = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":0,\"a\":9,\"b\":9}"))));
        assertThat(r.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(r.message().orElseThrow()).contains("_id");
        var many = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":0}"), obj("{\"_id\":7}"))));
        assertThat(many.outcome()).isEqualTo(Outcome.CONFLICT);
        var unique = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":8,\"b\":0}"))));
        assertThat(unique.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(unique.message().orElseThrow()).contains("b_1");
        assertThat(store.get(NS, JSON.parse("7", "id"), dev.weft.core.ReadMode.SINGLE)).isEmpty();
        assertThat(store.get(NS, JSON.parse("8", "id"), dev.weft.core.ReadMode.SINGLE)).isEmpty();
    }

    /** {@code $inc} of {@code a} in each document (an id may come twice), each write on a thread of its own. */
    private void incrementConcurrently(List<Integer> ids) throws Exception {
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"a\":1}}", "update"), QueryLimits.defaults());
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<?>> updates = new ArrayList<>();
            for (int i : ids) {
                var id = JSON.parse(Integer.toString(i), "id");
                updates.add(pool.submit(() -> assertThat(store.write(new WriteOp.UpdateOne(NS, id, inc, WriteMode.UPDATE,
                        Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED)));
            }
            for (var f : updates) {
                f.get();
            }
        }
    }

    /** Replaces document {@code r}, updates {@code u}, deletes {@code d}, counted from now: their transactions. */
    private List<RoundTripProxy.Transaction> replaceUpdateAndDelete(int r, int u, int d) {
        proxy.reset();
        assertThat(store.write(new WriteOp.Replace(NS, obj("{\"_id\":" + r + ",\"a\":3,\"b\":1" + r + "}"), WriteMode.UPSERT,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        Update set = Update.parse(JSON.parse("{\"$set\":{\"a\":4}}", "update"), QueryLimits.defaults());
        assertThat(store.write(new WriteOp.UpdateOne(NS, JSON.parse(Integer.toString(u), "id"), set, WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(store.write(new WriteOp.DeleteOne(NS, JSON.parse(Integer.toString(d), "id"), Optional.empty())).outcome())
                .isEqualTo(Outcome.DELETED);
        return proxy.transactions(WROTE_DOCUMENTS);
    }

    private static ObjectNode obj(String json) {
        return JSON.parseObject(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), "test");
    }
}
