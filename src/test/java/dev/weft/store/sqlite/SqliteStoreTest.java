package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.filter;
import static dev.weft.store.sqlite.StoreTesting.ids;
import static dev.weft.store.sqlite.StoreTesting.node;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static dev.weft.store.sqlite.StoreTesting.query;
import static dev.weft.store.sqlite.StoreTesting.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.store.ChangeEvent;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.store.WriteResult.Outcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class SqliteStoreTest {
    private static final Namespace NS = new Namespace("db", "coll");

    @TempDir
    Path dir;

    SqliteStore store;

    @BeforeEach
    void setUp() {
        StoreTesting.assumeQueryImplemented();
        store = StoreTesting.open(dir);
        store.putDatabase("db", obj("{}"), Optional.empty());
        store.putCollection(NS, obj("{}"), Optional.empty());
    }

    @AfterEach
    void tearDown() {
        if (store != null) {
            store.close();
        }
    }

    private WriteResult insert(String doc) {
        return store.write(new WriteOp.InsertMany(NS, List.of(obj(doc))));
    }

    private JsonNode get(String id) {
        return store.get(NS, node(id)).map(d -> JSON.parse(d.json(), "doc")).orElse(null);
    }

    private static String etag(JsonNode doc) {
        return doc.get("_etag").get("$oid").asString();
    }

    // --- catalog ---------------------------------------------------------------------------

    @Test
    void catalogCreatesListsAndDrops() {
        assertThat(store.putDatabase("db", obj("{\"a\":1}"), Optional.empty())).isFalse();
        assertThat(store.putDatabase("other", obj("{}"), Optional.empty())).isTrue();
        assertThat(store.databases()).containsExactly("db", "other");
        assertThat(store.database("db").orElseThrow().properties().get("a").asInt()).isEqualTo(1);
        assertThat(store.putCollection(new Namespace("db", "b"), obj("{}"), Optional.empty())).isTrue();
        assertThat(store.collections("db")).containsExactly("b", "coll");
        assertThat(store.collection(NS)).isPresent();
        assertThat(store.collection(new Namespace("db", "nope"))).isEmpty();

        assertThatThrownBy(() -> store.putCollection(new Namespace("missing", "c"), obj("{}"), Optional.empty()))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);
        assertThatThrownBy(() -> store.collections("missing"))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);

        store.dropCollection(new Namespace("db", "b"), Optional.empty());
        assertThat(store.collections("db")).containsExactly("coll");
        assertThatThrownBy(() -> store.dropCollection(new Namespace("db", "b"), Optional.empty()))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);

        insert("{\"_id\": 1}");
        store.dropDatabase("db", Optional.empty());
        assertThat(store.databases()).containsExactly("other");
        assertThat(store.collection(NS)).isEmpty();
        assertThatThrownBy(() -> store.get(NS, node("1")))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);
    }

    @Test
    void catalogEtagsAndIfMatch() {
        String etag = store.collection(NS).orElseThrow().etag();
        assertThatThrownBy(() -> store.putCollection(NS, obj("{\"x\":1}"), Optional.of("wrong")))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(412);
        assertThat(store.putCollection(NS, obj("{\"x\":1}"), Optional.of(etag))).isFalse();
        String etag2 = store.collection(NS).orElseThrow().etag();
        assertThat(etag2).isNotEqualTo(etag);
        assertThatThrownBy(() -> store.dropCollection(NS, Optional.of(etag)))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(412);
        String dbEtag = store.database("db").orElseThrow().etag();
        assertThatThrownBy(() -> store.dropDatabase("db", Optional.of("nope")))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(412);
        store.dropCollection(NS, Optional.of(etag2));
        store.dropDatabase("db", Optional.of(dbEtag));
        assertThat(store.databases()).isEmpty();
    }

    // --- writes ----------------------------------------------------------------------------

    @Test
    void insertSetsEtagAndStoresTheBytesItServes() {
        WriteResult r = insert("{\"_id\": \"a\", \"x\": 1}");
        assertThat(r.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(r.etag()).isPresent();
        JsonNode doc = get("\"a\"");
        assertThat(etag(doc)).isEqualTo(r.etag().get());
        byte[] stored = store.get(NS, node("\"a\"")).orElseThrow().json();
        assertThat(new String(stored, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"_id\":\"a\",\"x\":1,\"_etag\":{\"$oid\":\"" + r.etag().get() + "\"}}");
    }

    @Test
    void documentWithoutIdGetsAnObjectId() {
        WriteResult r = insert("{\"x\": 1}");
        assertThat(r.ok()).isTrue();
        List<String> all = ids(store, NS, query(null, null, 0, 10));
        assertThat(all).hasSize(1);
        assertThat(all.getFirst()).startsWith("{\"$oid\":");
    }

    @Test
    void insertManyIsAllOrNothing() {
        insert("{\"_id\": 2}");
        WriteResult r = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1}"), obj("{\"_id\":2}"), obj("{\"_id\":3}"))));
        assertThat(r.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(r.message().orElseThrow()).contains("_id").contains("2");
        assertThat(get("1")).isNull();
        assertThat(get("3")).isNull();
        WriteResult ok = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1}"), obj("{\"_id\":3}"))));
        assertThat(ok.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(ok.count()).isEqualTo(2);
        assertThat(store.count(NS, Filter.all())).isEqualTo(3);
    }

    @Test
    void aPreparedInsertIsStampedAndEncodedBeforeTheWriterAndStoresTheSame() {
        WriteOp prepared = store.prepare(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":7, \"v\":1}"))));
        assertThat(prepared).isInstanceOf(WriteOp.EncodedInsert.class);
        WriteOp.EncodedInsert encoded = (WriteOp.EncodedInsert) prepared;
        assertThat(JSON.parse(encoded.bodies().getFirst(), "body").get("_etag").get("$oid").asString()).isEqualTo(encoded.etag());
        assertThat(store.prepare(prepared)).isSameAs(prepared);
        WriteOp other = new WriteOp.DeleteOne(NS, node("7"), Optional.empty());
        assertThat(store.prepare(other)).isSameAs(other);

        WriteResult r = store.write(prepared);
        assertThat(r.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(r.etag()).contains(encoded.etag());
        assertThat(etag(get("7"))).isEqualTo(encoded.etag());
        assertThat(get("7").get("v").asInt()).isEqualTo(1);
        assertThat(store.write(prepared).outcome()).isEqualTo(Outcome.CONFLICT);
    }

    @Test
    void replaceHonoursWriteModes() {
        WriteOp.Replace insertOnly = new WriteOp.Replace(NS, obj("{\"_id\":1, \"v\":1}"), WriteMode.INSERT, Optional.empty());
        assertThat(store.write(insertOnly).outcome()).isEqualTo(Outcome.CREATED);
        assertThat(store.write(insertOnly).outcome()).isEqualTo(Outcome.CONFLICT);

        WriteOp.Replace updateMissing = new WriteOp.Replace(NS, obj("{\"_id\":2, \"v\":1}"), WriteMode.UPDATE, Optional.empty());
        assertThat(store.write(updateMissing).outcome()).isEqualTo(Outcome.NOT_FOUND);
        assertThat(get("2")).isNull();

        WriteOp.Replace upsert = new WriteOp.Replace(NS, obj("{\"_id\":2, \"v\":2}"), WriteMode.UPSERT, Optional.empty());
        assertThat(store.write(upsert).outcome()).isEqualTo(Outcome.CREATED);
        WriteResult again = store.write(new WriteOp.Replace(NS, obj("{\"_id\":2, \"w\":3}"), WriteMode.UPSERT, Optional.empty()));
        assertThat(again.outcome()).isEqualTo(Outcome.UPDATED);
        JsonNode doc = get("2");
        assertThat(doc.has("v")).isFalse();
        assertThat(doc.get("w").asInt()).isEqualTo(3);
        assertThat(etag(doc)).isEqualTo(again.etag().orElseThrow());

        WriteResult updated = store.write(new WriteOp.Replace(NS, obj("{\"_id\":1, \"v\":9}"), WriteMode.UPDATE, Optional.empty()));
        assertThat(updated.outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(get("1").get("v").asInt()).isEqualTo(9);
    }

    @Test
    void ifMatchGuardsEveryDocumentWrite() {
        String etag = insert("{\"_id\":1, \"v\":1}").etag().orElseThrow();
        assertThat(store.write(new WriteOp.Replace(NS, obj("{\"_id\":1}"), WriteMode.UPDATE, Optional.of("bad"))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE,
                Optional.of("bad"))).outcome()).isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.of("bad"))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(get("1").get("v").asInt()).isEqualTo(1);

        WriteResult r = store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE,
                Optional.of(etag)));
        assertThat(r.outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(r.etag().orElseThrow()).isNotEqualTo(etag);
        assertThat(store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.of(etag))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.DeleteOne(NS, node("1"), r.etag())).outcome()).isEqualTo(Outcome.DELETED);
        assertThat(store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.empty())).outcome()).isEqualTo(Outcome.NOT_FOUND);
    }

    @Test
    void updateOneModesAndErrors() {
        insert("{\"_id\":1, \"n\":1, \"s\":\"x\"}");
        assertThat(store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$inc\":{\"n\":2}}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(get("1").get("n").asInt()).isEqualTo(3);
        assertThat(store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$inc\":{\"n\":1}}"), WriteMode.INSERT,
                Optional.empty())).outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(store.write(new WriteOp.UpdateOne(NS, node("2"), update("{\"$inc\":{\"n\":1}}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.NOT_FOUND);
        WriteResult upsert = store.write(new WriteOp.UpdateOne(NS, node("2"), update("{\"$inc\":{\"n\":5}}"),
                WriteMode.UPSERT, Optional.empty()));
        assertThat(upsert.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(get("2").get("n").asInt()).isEqualTo(5);
        assertThat(get("2").get("_id").asInt()).isEqualTo(2);

        WriteResult bad = store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$inc\":{\"s\":1}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(bad.outcome()).isEqualTo(Outcome.INVALID);
        assertThat(bad.message()).isPresent();
        assertThat(get("1").get("s").asString()).isEqualTo("x");
    }

    @Test
    void bulkUpdateAndDeleteByFilter() {
        for (int i = 0; i < 20; i++) {
            insert("{\"_id\":" + i + ", \"g\":" + (i % 3) + "}");
        }
        store.createIndex(NS, new IndexSpec("g", List.of(new IndexField("g", 1)), false));
        WriteResult u = store.write(new WriteOp.UpdateMany(NS, filter("{\"g\":1}"), update("{\"$set\":{\"g\":5}}")));
        assertThat(u.outcome()).isEqualTo(Outcome.BULK_DONE);
        assertThat(u.count()).isEqualTo(7);
        assertThat(store.count(NS, filter("{\"g\":5}"))).isEqualTo(7);
        assertThat(store.count(NS, filter("{\"g\":1}"))).isZero();
        WriteResult d = store.write(new WriteOp.DeleteMany(NS, filter("{\"g\":{\"$gte\":2}}")));
        assertThat(d.count()).isEqualTo(13);
        assertThat(store.count(NS, Filter.all())).isEqualTo(7);
        assertThat(ids(store, NS, query(null, "{\"_id\":1}", 0, 100))).containsExactly("0", "3", "6", "9", "12", "15", "18");
    }

    @Test
    void writeToMissingCollectionIs404() {
        assertThatThrownBy(() -> store.write(new WriteOp.InsertMany(new Namespace("db", "none"), List.of(obj("{}")))))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);
    }

    @Test
    void writeAllGivesEachOpItsOwnResult() {
        List<WriteResult> rs = store.writeAll(List.of(
                new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1}"))),
                new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1}"))),
                new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":2}")))));
        assertThat(rs).extracting(WriteResult::outcome).containsExactly(Outcome.CREATED, Outcome.CONFLICT, Outcome.CREATED);
        assertThat(store.count(NS, Filter.all())).isEqualTo(2);
    }

    @Test
    void versionChangesOnEveryCommittedWrite() {
        long v0 = store.version(NS);
        insert("{\"_id\":1}");
        long v1 = store.version(NS);
        assertThat(v1).isNotEqualTo(v0);
        insert("{\"_id\":1}"); // conflict: nothing committed for NS
        assertThat(store.version(NS)).isEqualTo(v1);
        store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.empty()));
        assertThat(store.version(NS)).isNotEqualTo(v1);
    }

    @Test
    void commitListenerSeesCommittedChangesInOrder() {
        List<ChangeEvent> seen = new ArrayList<>();
        store.addCommitListener((commit, events) -> seen.addAll(events));
        insert("{\"_id\":1, \"v\":1}");
        insert("{\"_id\":1}");
        store.write(new WriteOp.UpdateOne(NS, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE, Optional.empty()));
        store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.empty()));
        assertThat(seen).extracting(ChangeEvent::operation).containsExactly(
                ChangeEvent.Operation.INSERT, ChangeEvent.Operation.UPDATE, ChangeEvent.Operation.DELETE);
        assertThat(seen.get(1).updateDescription().updatedFields().get("v").asInt()).isEqualTo(2);
        assertThat(seen.get(1).updateDescription().updatedFields().has("_etag")).isTrue();
    }

    // --- indexes ---------------------------------------------------------------------------

    @Test
    void uniqueIndexRefusesDuplicatesOnInsertUpdateAndBuild() {
        insert("{\"_id\":1, \"email\":\"a\"}");
        insert("{\"_id\":2, \"email\":\"b\"}");
        store.createIndex(NS, new IndexSpec("email_1", List.of(new IndexField("email", 1)), true));

        WriteResult dup = insert("{\"_id\":3, \"email\":\"a\"}");
        assertThat(dup.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(dup.message().orElseThrow()).contains("email_1");
        assertThat(get("3")).isNull();

        WriteResult upd = store.write(new WriteOp.UpdateOne(NS, node("2"), update("{\"$set\":{\"email\":\"a\"}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(upd.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(get("2").get("email").asString()).isEqualTo("b");

        // a document may keep its own key
        assertThat(store.write(new WriteOp.Replace(NS, obj("{\"_id\":2, \"email\":\"b\", \"x\":1}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        // and after a delete the key is free again
        store.write(new WriteOp.DeleteOne(NS, node("1"), Optional.empty()));
        assertThat(insert("{\"_id\":3, \"email\":\"a\"}").outcome()).isEqualTo(Outcome.CREATED);

        // a missing field is a null key: a second document without email is a duplicate too (MongoDB)
        assertThat(insert("{\"_id\":4, \"n\":1}").outcome()).isEqualTo(Outcome.CREATED);
        assertThat(insert("{\"_id\":5, \"n\":1}").outcome()).isEqualTo(Outcome.CONFLICT);
        insert("{\"_id\":5, \"n\":1, \"email\":\"c\"}");
        assertThatThrownBy(() -> store.createIndex(NS, new IndexSpec("n_1", List.of(new IndexField("n", 1)), true)))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(409);
        assertThat(store.indexes(NS)).extracting(IndexSpec::name).containsExactly("_id_", "email_1");
        assertThat(store.count(NS, filter("{\"n\":1}"))).isEqualTo(2);
    }

    @Test
    void indexesAreListedAndDropped() {
        IndexSpec compound = new IndexSpec("a_1_b_-1", List.of(new IndexField("a", 1), new IndexField("b", -1)), false);
        store.createIndex(NS, compound);
        store.createIndex(NS, compound); // same definition again: no-op
        assertThatThrownBy(() -> store.createIndex(NS, new IndexSpec("a_1_b_-1", List.of(new IndexField("a", 1)), false)))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(409);
        List<IndexSpec> listed = store.indexes(NS);
        assertThat(listed).hasSize(2);
        assertThat(listed.get(0).name()).isEqualTo("_id_");
        assertThat(listed.get(1)).isEqualTo(compound);
        assertThatThrownBy(() -> store.dropIndex(NS, "_id_"))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(400);
        assertThatThrownBy(() -> store.dropIndex(NS, "nope"))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(404);
        store.dropIndex(NS, "a_1_b_-1");
        assertThat(store.indexes(NS)).extracting(IndexSpec::name).containsExactly("_id_");
    }

    // --- reads -----------------------------------------------------------------------------

    @Test
    void findPagesInDefaultOrderAndRefusesUnservedStreams() {
        for (int i = 0; i < 30; i++) {
            insert("{\"_id\":" + i + ", \"v\":" + (i % 5) + "}");
        }
        assertThat(ids(store, NS, query(null, null, 0, 3))).containsExactly("29", "28", "27");
        assertThat(ids(store, NS, query(null, null, 28, 5))).containsExactly("1", "0");
        assertThat(ids(store, NS, query("{\"v\":0}", "{\"_id\":1}", 1, 2))).containsExactly("5", "10");
        assertThat(ids(store, NS, query(null, null, 0, Long.MAX_VALUE))).hasSize(30);
        assertThatThrownBy(() -> ids(store, NS, query(null, "{\"v\":1}", 0, Long.MAX_VALUE)))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(400);
        // a bounded page may sort on anything
        assertThat(ids(store, NS, query("{\"_id\":{\"$lt\":10}}", "{\"v\":-1}", 0, 3))).containsExactly("4", "9", "3");

        store.createIndex(NS, new IndexSpec("v_1", List.of(new IndexField("v", 1)), false));
        List<String> streamed = ids(store, NS, query(null, "{\"v\":-1}", 0, Long.MAX_VALUE));
        assertThat(streamed).hasSize(30);
        assertThat(streamed.subList(0, 3)).containsExactly("4", "9", "14");
        assertThat(store.lastPlan().ordered()).isTrue();

        FindQuery badHint = new FindQuery(Filter.all(), dev.weft.query.Sort.ID_DESCENDING, 0, 10, Optional.of("nope"));
        assertThatThrownBy(() -> ids(store, NS, badHint))
                .isInstanceOf(WeftException.class).extracting("status").isEqualTo(400);
        FindQuery hinted = new FindQuery(filter("{\"v\":2}"), dev.weft.query.Sort.ID_DESCENDING, 0, 10, Optional.of("v_1"));
        assertThat(ids(store, NS, hinted)).containsExactly("27", "22", "17", "12", "7", "2");
        assertThat(store.lastPlan().description()).contains("v_1");
    }

    @Test
    void streamingReadsSpanManyChunksWithTiesInReverse() {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            docs.add(obj("{\"_id\":" + i + ", \"k\":" + (i % 3) + "}"));
        }
        store.write(new WriteOp.InsertMany(NS, docs));
        store.createIndex(NS, new IndexSpec("k_1", List.of(new IndexField("k", 1)), false));
        List<String> desc = ids(store, NS, query(null, "{\"k\":-1}", 0, Long.MAX_VALUE));
        List<String> expected = new ArrayList<>();
        for (int k = 2; k >= 0; k--) {
            for (int i = k; i < 2500; i += 3) {
                expected.add(String.valueOf(i));
            }
        }
        assertThat(desc).isEqualTo(expected);
        List<String> filtered = ids(store, NS, query("{\"k\":{\"$gte\":1}}", "{\"k\":-1}", 100, Long.MAX_VALUE));
        assertThat(filtered).isEqualTo(expected.subList(100, 2500 - 834));
    }

    @Test
    void dataAndIndexesSurviveReopening() {
        store.createIndex(NS, new IndexSpec("u", List.of(new IndexField("u", 1)), true));
        insert("{\"_id\":1, \"u\":[1,2]}");
        insert("{\"_id\":2, \"u\":3}");
        store.close();
        store = StoreTesting.open(dir);
        assertThat(store.databases()).containsExactly("db");
        assertThat(store.indexes(NS)).extracting(IndexSpec::name).containsExactly("_id_", "u");
        assertThat(get("1").get("u").size()).isEqualTo(2);
        assertThat(insert("{\"_id\":3, \"u\":2}").outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(ids(store, NS, query("{\"u\":2}", null, 0, 10))).containsExactly("1");
    }
}
