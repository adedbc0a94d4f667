package dev.weft.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.Update;
import dev.weft.store.ChangeEvent.Operation;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.plan.QueryPlanner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every {@link Store} does, run directly (not through HTTP) against each store by a
 * subclass: catalog, indexes, finds by every kind of plan, counts, every {@link WriteOp}, batches,
 * versions, the event log and the query time limit. A behaviour that differs between the stores
 * is a bug of one of them; what only one store has (reopening a data directory, several nodes)
 * is tested beside it.
 *
 * <p>Each test gets a store of its own ({@link #open}: a fresh directory, a fresh PostgreSQL
 * schema) and a database name of its own, so tests cannot see each other's data.
 */
public abstract class StoreContract {
    protected static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();
    private static final AtomicLong DBS = new AtomicLong();

    protected Store store;
    protected String db;
    protected Namespace ns;

    /** A new, empty store of this kind, isolated from every other test's; {@code args} are extra settings. */
    protected abstract Store open(String... args);

    /** The plan of the last find or count the store planned. */
    protected abstract QueryPlanner.Plan<?> lastPlan();

    /** Queries this store read split into parts ({@code parallel-scans}). */
    protected abstract long splitScans();

    /** Releases what {@link #open} took beyond the store (a schema); the store is closed already. */
    protected void cleanUp() {}

    @BeforeEach
    void openStore() {
        store = open();
        db = "contract" + DBS.incrementAndGet();
        ns = new Namespace(db, "coll");
        store.putDatabase(db, obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
    }

    @AfterEach
    void closeStore() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            cleanUp();
        }
    }

    // --- helpers ---------------------------------------------------------------------------------

    protected static ObjectNode obj(String json) {
        return (ObjectNode) JSON.parse(json, "test");
    }

    protected static JsonNode node(String json) {
        return JSON.parse(json, "test");
    }

    protected static Filter filter(String json) {
        return Filter.parse(node(json), LIMITS);
    }

    protected static Update update(String json) {
        return Update.parse(node(json), LIMITS);
    }

    protected static FindQuery query(String filter, String sort, long skip, long limit) {
        return query(filter, sort, skip, limit, null);
    }

    protected static FindQuery query(String filter, String sort, long skip, long limit, String hint) {
        return new FindQuery(filter == null ? Filter.all() : filter(filter), sort == null ? Sort.ID_DESCENDING
                : Sort.parse(sort, LIMITS), skip, limit, Optional.ofNullable(hint));
    }

    protected WriteResult insert(String doc) {
        return store.write(new WriteOp.InsertMany(ns, List.of(obj(doc))));
    }

    protected void insertNumbered(int n, String extra) {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            docs.add(obj("{\"_id\":" + i + ", \"k\":" + (i % 3) + ", \"s\":\"v" + (i % 7) + "\"" + extra + "}"));
            if (docs.size() == 1000) {
                assertThat(store.write(new WriteOp.InsertMany(ns, docs)).ok()).isTrue();
                docs = new ArrayList<>();
            }
        }
        if (!docs.isEmpty()) {
            assertThat(store.write(new WriteOp.InsertMany(ns, docs)).ok()).isTrue();
        }
    }

    protected JsonNode get(String id) {
        return store.get(ns, node(id)).map(d -> JSON.parse(d.json(), "doc")).orElse(null);
    }

    protected List<String> ids(FindQuery q) {
        List<String> ids = new ArrayList<>();
        store.find(ns, q, d -> ids.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return ids;
    }

    private static String etag(JsonNode doc) {
        return doc.get("_etag").get("$oid").asString();
    }

    private static void assertStatus(Runnable r, int status) {
        assertThatThrownBy(r::run).isInstanceOf(WeftException.class).extracting("status").isEqualTo(status);
    }

    private IndexSpec index(String name, boolean unique, String... pathsAndDirections) {
        List<IndexField> fields = new ArrayList<>();
        for (String f : pathsAndDirections) {
            fields.add(new IndexField(f.startsWith("-") ? f.substring(1) : f, f.startsWith("-") ? -1 : 1));
        }
        return new IndexSpec(name, fields, unique);
    }

    /**
     * The events logged after {@code after}, waiting until at least {@code expected} are readable
     * (a store may number committed events a moment after the commit).
     */
    protected List<ChangeEvent> eventsAfter(long after, int expected) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<ChangeEvent> events = store.eventLog().after(after, 1000);
        while (events.size() < expected && System.nanoTime() < deadline) {
            pause(20);
            events = store.eventLog().after(after, 1000);
        }
        return events;
    }

    /**
     * The log's {@code last()} once it reached {@code expected} or 10 s passed: a store may learn
     * its last position on a thread of its own (PostgreSQL's event reader), after {@code after()}
     * could already read the events from the database.
     */
    private long lastOnceSettled(long expected) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long last = store.eventLog().last();
        while (last < expected && System.nanoTime() < deadline) {
            pause(20);
            last = store.eventLog().last();
        }
        return last;
    }

    private long eventPosition() {
        // events of earlier writes may still be numbered: wait for the log to settle
        long last = -1;
        long now = store.eventLog().last();
        while (now != last) {
            last = now;
            pause(100);
            now = store.eventLog().last();
        }
        return now;
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // --- catalog ---------------------------------------------------------------------------------

    @Test
    void catalogCreatesListsAndDrops() {
        String other = db + "o";
        assertThat(store.putDatabase(db, obj("{\"a\":1}"), Optional.empty())).isFalse();
        assertThat(store.putDatabase(other, obj("{}"), Optional.empty())).isTrue();
        assertThat(store.databases()).containsExactly(db, other);
        assertThat(store.database(db).orElseThrow().properties().get("a").asInt()).isEqualTo(1);
        assertThat(store.database("missing")).isEmpty();
        assertThat(store.putCollection(new Namespace(db, "b"), obj("{\"p\":2}"), Optional.empty())).isTrue();
        assertThat(store.collections(db)).containsExactly("b", "coll");
        assertThat(store.collection(new Namespace(db, "b")).orElseThrow().properties().get("p").asInt()).isEqualTo(2);
        assertThat(store.collection(new Namespace(db, "nope"))).isEmpty();

        assertStatus(() -> store.putCollection(new Namespace("missing", "c"), obj("{}"), Optional.empty()), 404);
        assertStatus(() -> store.collections("missing"), 404);
        assertStatus(() -> store.dropDatabase("missing", Optional.empty()), 404);

        store.dropCollection(new Namespace(db, "b"), Optional.empty());
        assertThat(store.collections(db)).containsExactly("coll");
        assertStatus(() -> store.dropCollection(new Namespace(db, "b"), Optional.empty()), 404);

        insert("{\"_id\": 1}");
        store.dropDatabase(db, Optional.empty());
        assertThat(store.databases()).containsExactly(other);
        assertThat(store.collection(ns)).isEmpty();
        assertStatus(() -> store.get(ns, node("1")), 404);
        assertStatus(() -> store.find(ns, query(null, null, 0, 10), d -> {}), 404);
        assertStatus(() -> store.count(ns, Filter.all()), 404);
        assertStatus(() -> store.write(new WriteOp.InsertMany(ns, List.of(obj("{}")))), 404);

        // a collection made again with the same name starts empty
        store.putDatabase(db, obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        assertThat(store.count(ns, Filter.all())).isZero();
    }

    @Test
    void catalogEtagsAndIfMatch() {
        String etag = store.collection(ns).orElseThrow().etag();
        assertStatus(() -> store.putCollection(ns, obj("{\"x\":1}"), Optional.of("wrong")), 412);
        assertThat(store.putCollection(ns, obj("{\"x\":1}"), Optional.of(etag))).isFalse();
        String etag2 = store.collection(ns).orElseThrow().etag();
        assertThat(etag2).isNotEqualTo(etag);
        assertThat(store.collection(ns).orElseThrow().properties().get("x").asInt()).isEqualTo(1);
        assertStatus(() -> store.dropCollection(ns, Optional.of(etag)), 412);
        String dbEtag = store.database(db).orElseThrow().etag();
        assertStatus(() -> store.putDatabase(db, obj("{}"), Optional.of("nope")), 412);
        assertStatus(() -> store.dropDatabase(db, Optional.of("nope")), 412);
        // If-Match on something missing
        assertStatus(() -> store.putCollection(new Namespace(db, "new"), obj("{}"), Optional.of(etag2)), 412);
        store.dropCollection(ns, Optional.of(etag2));
        store.dropDatabase(db, Optional.of(dbEtag));
        assertThat(store.databases()).doesNotContain(db);
    }

    // --- indexes ---------------------------------------------------------------------------------

    @Test
    void indexesAreCreatedListedAndDropped() {
        IndexSpec compound = index("a_1_b_-1", false, "a", "-b");
        store.createIndex(ns, compound);
        store.createIndex(ns, compound); // the same definition again: nothing to do
        assertStatus(() -> store.createIndex(ns, index("a_1_b_-1", false, "a")), 409);
        assertStatus(() -> store.createIndex(ns, index("_id_", false, "a")), 400);
        assertStatus(() -> store.createIndex(new Namespace(db, "none"), compound), 404);
        List<IndexSpec> listed = store.indexes(ns);
        assertThat(listed).extracting(IndexSpec::name).containsExactly("_id_", "a_1_b_-1");
        assertThat(listed.get(1)).isEqualTo(compound);
        assertStatus(() -> store.dropIndex(ns, "_id_"), 400);
        assertStatus(() -> store.dropIndex(ns, "nope"), 404);
        store.dropIndex(ns, "a_1_b_-1");
        assertThat(store.indexes(ns)).extracting(IndexSpec::name).containsExactly("_id_");
    }

    @Test
    void uniqueIndexRefusesDuplicatesOnInsertUpdateAndBuild() {
        insert("{\"_id\":1, \"email\":\"a\"}");
        insert("{\"_id\":2, \"email\":\"b\"}");
        store.createIndex(ns, index("email_1", true, "email"));

        WriteResult dup = insert("{\"_id\":3, \"email\":\"a\"}");
        assertThat(dup.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(dup.message().orElseThrow()).contains("email_1");
        assertThat(get("3")).isNull();

        WriteResult upd = store.write(new WriteOp.UpdateOne(ns, node("2"), update("{\"$set\":{\"email\":\"a\"}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(upd.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(get("2").get("email").asString()).isEqualTo("b");

        // a document may keep its own key
        assertThat(store.write(new WriteOp.Replace(ns, obj("{\"_id\":2, \"email\":\"b\", \"x\":1}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        // and after a delete the key is free again
        store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.empty()));
        assertThat(insert("{\"_id\":3, \"email\":\"a\"}").outcome()).isEqualTo(Outcome.CREATED);

        // a missing field is a null key: a second document without email is a duplicate too (MongoDB)
        assertThat(insert("{\"_id\":4, \"n\":1}").outcome()).isEqualTo(Outcome.CREATED);
        assertThat(insert("{\"_id\":5, \"n\":1}").outcome()).isEqualTo(Outcome.CONFLICT);
        insert("{\"_id\":5, \"n\":1, \"email\":\"c\"}");

        // building a unique index over documents that share a key: 409, and no index is left
        assertStatus(() -> store.createIndex(ns, index("n_1", true, "n")), 409);
        assertThat(store.indexes(ns)).extracting(IndexSpec::name).containsExactly("_id_", "email_1");
        assertThat(store.count(ns, filter("{\"n\":1}"))).isEqualTo(2);
        assertThat(insert("{\"_id\":6, \"n\":1, \"email\":\"d\"}").outcome()).isEqualTo(Outcome.CREATED);
    }

    @Test
    void multikeyIndexesAnswerAsMongoDbDoes() {
        store.createIndex(ns, index("t_1", false, "t"));
        insert("{\"_id\":1, \"t\":5}");
        insert("{\"_id\":3, \"t\":3}");
        // the first array makes the index multikey: its order no longer is the sort's
        insert("{\"_id\":2, \"t\":[1, 9]}");
        assertThat(ids(query(null, "{\"t\":1}", 0, 10))).containsExactly("2", "3", "1");
        assertThat(ids(query(null, "{\"t\":-1}", 0, 10))).containsExactly("2", "1", "3");
        assertThat(ids(query("{\"t\":9}", null, 0, 10))).containsExactly("2");
        assertThat(ids(query("{\"t\":{\"$gt\":4}}", "{\"_id\":1}", 0, 10))).containsExactly("1", "2");
        assertThat(store.count(ns, filter("{\"t\":{\"$gt\":4}}"))).isEqualTo(2);
        assertThat(store.count(ns, filter("{\"t\":{\"$lt\":4}}"))).isEqualTo(2);
        // a document matched by two of its keys is found once
        assertThat(ids(query("{\"t\":{\"$in\":[1, 9]}}", null, 0, 10))).containsExactly("2");

        // an index built over documents that already hold arrays is multikey from the start
        store.createIndex(ns, index("t_-1", false, "-t"));
        assertThat(ids(query(null, "{\"t\":-1}", 0, 10, "t_-1"))).containsExactly("2", "1", "3");
        WriteResult moved = store.write(new WriteOp.UpdateOne(ns, node("2"), update("{\"$set\":{\"t\":[4]}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(moved.ok()).isTrue();
        assertThat(ids(query("{\"t\":9}", null, 0, 10))).isEmpty();
        assertThat(ids(query("{\"t\":4}", null, 0, 10))).containsExactly("2");
    }

    // --- reads -----------------------------------------------------------------------------------

    @Test
    void findFiltersSortsSkipsAndLimits() {
        for (int i = 0; i < 30; i++) {
            insert("{\"_id\":" + i + ", \"v\":" + (i % 5) + "}");
        }
        assertThat(ids(query(null, null, 0, 3))).containsExactly("29", "28", "27");
        assertThat(ids(query(null, null, 28, 5))).containsExactly("1", "0");
        assertThat(ids(query(null, null, 30, 5))).isEmpty();
        assertThat(ids(query(null, null, 0, 0))).isEmpty();
        assertThat(ids(query("{\"v\":0}", "{\"_id\":1}", 1, 2))).containsExactly("5", "10");
        assertThat(ids(query("{\"_id\":{\"$gte\":10, \"$lt\":13}}", "{\"_id\":1}", 0, 10))).containsExactly("10", "11", "12");
        assertThat(ids(query("{\"_id\":{\"$in\":[3, 17, 99]}}", null, 0, 10))).containsExactly("17", "3");
        assertThat(ids(query(null, null, 0, Long.MAX_VALUE))).hasSize(30);

        // a sort no index serves: the top of a heap, ties by _id ascending
        assertThat(ids(query("{\"_id\":{\"$lt\":10}}", "{\"v\":-1}", 0, 3))).containsExactly("4", "9", "3");
        assertThat(lastPlan().ordered()).isFalse();
        assertThat(ids(query(null, "{\"v\":1}", 4, 3))).containsExactly("20", "25", "1");
        // but it cannot stream everything
        assertStatus(() -> ids(query(null, "{\"v\":1}", 0, Long.MAX_VALUE)), 400);

        // an index serves the order: read in order, ties by _id ascending in both directions
        store.createIndex(ns, index("v_1", false, "v"));
        List<String> streamed = ids(query(null, "{\"v\":-1}", 0, Long.MAX_VALUE));
        assertThat(streamed).hasSize(30);
        assertThat(streamed.subList(0, 3)).containsExactly("4", "9", "14");
        assertThat(lastPlan().ordered()).isTrue();
        assertThat(ids(query("{\"v\":{\"$gte\":3}}", "{\"v\":1}", 5, 3))).containsExactly("28", "4", "9");
        assertThat(lastPlan().usesIndex()).isTrue();
    }

    @Test
    void hintsChooseTheSource() {
        for (int i = 0; i < 30; i++) {
            insert("{\"_id\":" + i + ", \"v\":" + (i % 5) + "}");
        }
        store.createIndex(ns, index("v_1", false, "v"));
        assertStatus(() -> ids(query(null, null, 0, 10, "nope")), 400);
        assertThat(ids(query("{\"v\":2}", null, 0, 10, "v_1"))).containsExactly("27", "22", "17", "12", "7", "2");
        assertThat(lastPlan().description()).contains("v_1");
        assertThat(ids(query("{\"v\":2}", null, 0, 2, "_id_"))).containsExactly("27", "22");
        assertThat(lastPlan().description()).doesNotContain("v_1");
    }

    @Test
    void orderedReadsResumeAcrossChunksWithTiesInReverse() {
        insertNumbered(2500, "");
        store.createIndex(ns, index("k_1", false, "k"));
        List<String> expected = new ArrayList<>();
        for (int k = 2; k >= 0; k--) {
            for (int i = k; i < 2500; i += 3) {
                expected.add(String.valueOf(i));
            }
        }
        assertThat(ids(query(null, "{\"k\":-1}", 0, Long.MAX_VALUE))).isEqualTo(expected);
        assertThat(ids(query("{\"k\":{\"$gte\":1}}", "{\"k\":-1}", 100, Long.MAX_VALUE)))
                .isEqualTo(expected.subList(100, 2500 - 834));
        List<String> ascending = ids(query(null, "{\"k\":1}", 1200, 1100));
        List<String> expectedAscending = new ArrayList<>();
        for (int k = 0; k <= 2; k++) {
            for (int i = k; i < 2500; i += 3) {
                expectedAscending.add(String.valueOf(i));
            }
        }
        assertThat(ascending).isEqualTo(expectedAscending.subList(1200, 2300));
        // by _id, with a filter the primary key cannot serve: every chunk is filtered
        List<String> byId = ids(query("{\"s\":\"v3\"}", "{\"_id\":1}", 0, Long.MAX_VALUE));
        assertThat(byId).hasSize(357).startsWith("3", "10", "17").endsWith("2495");
        // two key ranges walked in order
        List<String> two = ids(query("{\"k\":{\"$in\":[0, 2]}}", "{\"k\":1}", 0, Long.MAX_VALUE));
        assertThat(two).hasSize(1667).startsWith("0", "3").endsWith("2495", "2498");
        assertThat(store.count(ns, filter("{\"k\":{\"$in\":[0, 2]}}"))).isEqualTo(1667);
    }

    @Test
    void countsWithAndWithoutFilters() {
        assertThat(store.count(ns, Filter.all())).isZero();
        insertNumbered(100, "");
        assertThat(store.count(ns, Filter.all())).isEqualTo(100);
        assertThat(store.count(ns, null)).isEqualTo(100);
        assertThat(store.count(ns, filter("{\"k\":1}"))).isEqualTo(33);
        assertThat(store.count(ns, filter("{\"_id\":{\"$lt\":10}}"))).isEqualTo(10);
        store.createIndex(ns, index("k_1", false, "k"));
        assertThat(store.count(ns, filter("{\"k\":1}"))).isEqualTo(33);
        assertThat(store.count(ns, filter("{\"k\":1, \"s\":\"v1\"}"))).isEqualTo(5);
        assertThat(store.count(ns, filter("{\"k\":7}"))).isZero();
    }

    /** Everything a split scan answers, on the store open now: counts, pages in _id and unindexed orders, scanParts. */
    private List<Object> answersOfWholeCollectionReads() {
        List<Object> out = new ArrayList<>();
        for (String f : List.of("{\"k\":1}", "{\"s\":{\"$regex\":\"v[35]\"}}", "{\"t\":{\"$exists\":true}}", "{\"k\":{\"$gte\":0}}")) {
            out.add(store.count(ns, filter(f)));
            out.add(ids(query(f, null, 0, 10)));
            out.add(ids(query(f, null, 7, 25)));
            out.add(ids(query(f, "{\"_id\":1}", 3, 20)));
            out.add(ids(query(f, "{\"s\":-1, \"k\":1}", 5, 12)));
            List<String> scanned = java.util.Collections.synchronizedList(new ArrayList<>());
            store.scanParts(ns, filter(f), dev.weft.core.ReadMode.SINGLE, 3,
                    part -> d -> scanned.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
            out.add(scanned.stream().sorted().toList());
        }
        return out;
    }

    private void insertMixedIds() {
        insertNumbered(3_000, "");
        for (int i = 0; i < 60; i++) {
            insert("{\"_id\":\"s" + i + "\", \"k\":" + (i % 3) + ", \"s\":\"v" + (i % 7) + "\", \"t\":" + i + "}");
        }
        insert("{\"_id\":{\"o\":1}, \"k\":1, \"s\":\"v3\"}");
    }

    @Test
    void aSplitScanAnswersWhatTheUnsplitOneDoes() {
        store.close();
        store = open("--parallel-scans", "0");
        store.putDatabase(db, obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        insertMixedIds();
        List<Object> unsplit = answersOfWholeCollectionReads();
        assertThat(splitScans()).isZero();

        store.close();
        // no held rows: SQLite would answer the literal-testing finds from memory, unsplit
        store = open("--parallel-scans", "2", "--scan-parts", "3", "--scan-split-min-rows", "100", "--held-rows-bytes", "0");
        store.putDatabase(db, obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        insertMixedIds();
        List<Object> split = answersOfWholeCollectionReads();
        assertThat(split).isEqualTo(unsplit);
        assertThat(splitScans()).as("every count, unindexed sort, _id-ordered page and scanParts was split")
                .isEqualTo(4 * 6);
    }

    @Test
    void anUnindexedSortKeepsAtMostMaxSortBytes() {
        store.close();
        store = open("--max-sort-bytes", "2048");
        store.putDatabase(db, obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        insertNumbered(200, ", \"pad\":\"" + "x".repeat(100) + "\"");
        assertThat(ids(query(null, "{\"k\":1}", 0, 5))).containsExactly("0", "3", "6", "9", "12");
        assertThatThrownBy(() -> ids(query(null, "{\"k\":1}", 0, 100))).isInstanceOf(WeftException.class)
                .hasMessageContaining("max-sort-bytes").extracting("status").isEqualTo(400);
    }

    @Test
    void aQueryPastItsTimeLimitStopsAndTheStoreGoesOn() {
        insertNumbered(20_000, ", \"t\":\"some text to match against\"");
        // no literal the database could search for first: every document is read and tested
        Filter slow = filter("{\"t\":{\"$regex\":\"[0-9]{5}\"}}");
        FindQuery find = new FindQuery(slow, Sort.ID_DESCENDING, 0, 10, Optional.empty());
        List<Runnable> queries = List.of(
                () -> store.find(ns, find, d -> {}),
                () -> store.count(ns, slow),
                () -> store.find(ns, new FindQuery(slow, Sort.parse("{\"s\":1}", LIMITS), 0, 10, Optional.empty()), d -> {}));
        for (int i = 0; i < queries.size(); i++) {
            Runnable query = queries.get(i);
            assertThat(catchThrowable(() -> QueryTime.limitedTo(OptionalLong.of(1), query::run))).as("query %d", i)
                    .isInstanceOf(WeftException.class)
                    .hasMessageContaining("operation exceeded time limit").hasMessageContaining("1 ms (its maxTimeMS)")
                    .extracting("status").isEqualTo(503);
        }
        // a bulk write's search is a query too: the op fails, and changes nothing
        WriteResult[] deleted = new WriteResult[1];
        QueryTime.limitedTo(OptionalLong.of(1), () -> deleted[0] = store.write(new WriteOp.DeleteMany(ns, slow)));
        assertThat(deleted[0].outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(deleted[0].message().orElseThrow()).contains("operation exceeded time limit");
        // nothing was deleted, and every connection is back: the same queries answer without the limit
        assertThat(store.count(ns, Filter.all())).isEqualTo(20_000);
        for (int i = 0; i < 4; i++) {
            assertThat(store.count(ns, slow)).isZero();
        }
        assertThat(ids(query(null, null, 0, 1))).containsExactly("19999");
    }

    // --- writes ----------------------------------------------------------------------------------

    @Test
    void insertSetsEtagAndStoresTheBytesItServes() {
        WriteResult r = insert("{\"_id\": \"a\", \"x\": 1}");
        assertThat(r.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(r.count()).isEqualTo(1);
        assertThat(r.etag()).isPresent();
        byte[] stored = store.get(ns, node("\"a\"")).orElseThrow().json();
        assertThat(new String(stored, StandardCharsets.UTF_8))
                .isEqualTo("{\"_id\":\"a\",\"x\":1,\"_etag\":{\"$oid\":\"" + r.etag().get() + "\"}}");
        assertThat(store.get(ns, node("\"b\""))).isEmpty();
        // an _id is matched by value, as MongoDB does: 1, 1.0 and a long 1 are one _id
        insert("{\"_id\": 1}");
        assertThat(store.get(ns, node("1.0"))).isPresent();
        assertThat(insert("{\"_id\": 1.0}").outcome()).isEqualTo(Outcome.CONFLICT);
    }

    @Test
    void aDocumentWithoutIdGetsAnObjectId() {
        assertThat(insert("{\"x\": 1}").ok()).isTrue();
        List<String> all = ids(query(null, null, 0, 10));
        assertThat(all).hasSize(1);
        assertThat(all.getFirst()).startsWith("{\"$oid\":");
    }

    @Test
    void insertManyIsAllOrNothing() {
        insert("{\"_id\": 2}");
        WriteResult r = store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1}"), obj("{\"_id\":2}"), obj("{\"_id\":3}"))));
        assertThat(r.outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(get("1")).isNull();
        assertThat(get("3")).isNull();
        WriteResult ok = store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1}"), obj("{\"_id\":3}"))));
        assertThat(ok.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(ok.count()).isEqualTo(2);
        assertThat(ok.etag()).isEmpty();
        assertThat(store.count(ns, Filter.all())).isEqualTo(3);
    }

    @Test
    void aPreparedInsertIsStampedBeforeTheWriteAndStoresTheSame() {
        WriteOp prepared = store.prepare(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":7, \"v\":1}"))));
        WriteOp other = new WriteOp.DeleteOne(ns, node("7"), Optional.empty());
        assertThat(store.prepare(other)).isSameAs(other);
        WriteResult r = store.write(prepared);
        assertThat(r.outcome()).isEqualTo(Outcome.CREATED);
        if (prepared instanceof WriteOp.EncodedInsert encoded) {
            assertThat(r.etag()).contains(encoded.etag());
        }
        assertThat(etag(get("7"))).isEqualTo(r.etag().orElseThrow());
        assertThat(get("7").get("v").asInt()).isEqualTo(1);
        assertThat(store.write(prepared).outcome()).isEqualTo(Outcome.CONFLICT);
        WriteOp.EncodedInsert encoded = new WriteOp.EncodedInsert(ns, List.of(obj("{\"_id\":8,\"_etag\":{\"$oid\":\"e\"}}")),
                List.of("{\"_id\":8,\"_etag\":{\"$oid\":\"e\"}}".getBytes(StandardCharsets.UTF_8)), "e");
        assertThat(store.write(encoded).etag()).contains("e");
        assertThat(new String(store.get(ns, node("8")).orElseThrow().json(), StandardCharsets.UTF_8))
                .isEqualTo("{\"_id\":8,\"_etag\":{\"$oid\":\"e\"}}");
    }

    @Test
    void replaceHonoursWriteModes() {
        WriteOp.Replace insertOnly = new WriteOp.Replace(ns, obj("{\"_id\":1, \"v\":1}"), WriteMode.INSERT, Optional.empty());
        assertThat(store.write(insertOnly).outcome()).isEqualTo(Outcome.CREATED);
        assertThat(store.write(insertOnly).outcome()).isEqualTo(Outcome.CONFLICT);

        WriteOp.Replace updateMissing = new WriteOp.Replace(ns, obj("{\"_id\":2, \"v\":1}"), WriteMode.UPDATE, Optional.empty());
        assertThat(store.write(updateMissing).outcome()).isEqualTo(Outcome.NOT_FOUND);
        assertThat(get("2")).isNull();

        WriteOp.Replace upsert = new WriteOp.Replace(ns, obj("{\"_id\":2, \"v\":2}"), WriteMode.UPSERT, Optional.empty());
        assertThat(store.write(upsert).outcome()).isEqualTo(Outcome.CREATED);
        WriteResult again = store.write(new WriteOp.Replace(ns, obj("{\"_id\":2, \"w\":3}"), WriteMode.UPSERT, Optional.empty()));
        assertThat(again.outcome()).isEqualTo(Outcome.UPDATED);
        JsonNode doc = get("2");
        assertThat(doc.has("v")).isFalse();
        assertThat(doc.get("w").asInt()).isEqualTo(3);
        assertThat(etag(doc)).isEqualTo(again.etag().orElseThrow());

        WriteResult updated = store.write(new WriteOp.Replace(ns, obj("{\"_id\":1, \"v\":9}"), WriteMode.UPDATE, Optional.empty()));
        assertThat(updated.outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(get("1").get("v").asInt()).isEqualTo(9);
        // If-Match on an upsert of a missing document: nothing to match
        assertThat(store.write(new WriteOp.Replace(ns, obj("{\"_id\":3}"), WriteMode.UPSERT, Optional.of("x"))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(get("3")).isNull();
    }

    @Test
    void ifMatchGuardsEveryDocumentWrite() {
        String etag = insert("{\"_id\":1, \"v\":1}").etag().orElseThrow();
        assertThat(store.write(new WriteOp.Replace(ns, obj("{\"_id\":1}"), WriteMode.UPDATE, Optional.of("bad"))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE,
                Optional.of("bad"))).outcome()).isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.of("bad"))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(get("1").get("v").asInt()).isEqualTo(1);

        WriteResult r = store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE,
                Optional.of(etag)));
        assertThat(r.outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(r.etag().orElseThrow()).isNotEqualTo(etag);
        assertThat(store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.of(etag))).outcome())
                .isEqualTo(Outcome.PRECONDITION_FAILED);
        assertThat(store.write(new WriteOp.DeleteOne(ns, node("1"), r.etag())).outcome()).isEqualTo(Outcome.DELETED);
        assertThat(store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.empty())).outcome()).isEqualTo(Outcome.NOT_FOUND);
    }

    @Test
    void updateOneModesAndErrors() {
        insert("{\"_id\":1, \"n\":1, \"s\":\"x\"}");
        assertThat(store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$inc\":{\"n\":2}}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
        assertThat(get("1").get("n").asInt()).isEqualTo(3);
        assertThat(store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$inc\":{\"n\":1}}"), WriteMode.INSERT,
                Optional.empty())).outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(store.write(new WriteOp.UpdateOne(ns, node("2"), update("{\"$inc\":{\"n\":1}}"), WriteMode.UPDATE,
                Optional.empty())).outcome()).isEqualTo(Outcome.NOT_FOUND);
        WriteResult upsert = store.write(new WriteOp.UpdateOne(ns, node("2"), update("{\"$inc\":{\"n\":5}}"),
                WriteMode.UPSERT, Optional.empty()));
        assertThat(upsert.outcome()).isEqualTo(Outcome.CREATED);
        assertThat(get("2").get("n").asInt()).isEqualTo(5);
        assertThat(get("2").get("_id").asInt()).isEqualTo(2);

        WriteResult bad = store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$inc\":{\"s\":1}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(bad.outcome()).isEqualTo(Outcome.INVALID);
        assertThat(bad.message()).isPresent();
        assertThat(get("1").get("s").asString()).isEqualTo("x");
        WriteResult changesId = store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"_id\":9}}"),
                WriteMode.UPDATE, Optional.empty()));
        assertThat(changesId.outcome()).isEqualTo(Outcome.INVALID);
        assertThat(changesId.message().orElseThrow()).contains("_id cannot be modified");

        WriteOp.ResultCheck refuse = (before, after) -> {
            throw new WeftException(403, "not this one");
        };
        WriteResult refused = store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"n\":0}}"),
                WriteMode.UPDATE, Optional.empty(), refuse));
        assertThat(refused.ok()).isFalse();
        assertThat(get("1").get("n").asInt()).isEqualTo(3);
    }

    @Test
    void bulkUpdateAndDeleteByFilter() {
        for (int i = 0; i < 20; i++) {
            insert("{\"_id\":" + i + ", \"g\":" + (i % 3) + "}");
        }
        store.createIndex(ns, index("g", false, "g"));
        WriteResult u = store.write(new WriteOp.UpdateMany(ns, filter("{\"g\":1}"), update("{\"$set\":{\"g\":5}}")));
        assertThat(u.outcome()).isEqualTo(Outcome.BULK_DONE);
        assertThat(u.count()).isEqualTo(7);
        assertThat(store.count(ns, filter("{\"g\":5}"))).isEqualTo(7);
        assertThat(store.count(ns, filter("{\"g\":1}"))).isZero();

        // a check that refuses one document refuses the whole op
        WriteOp.ResultCheck noSix = (before, after) -> {
            if (after.get("_id").asInt() == 6) {
                throw new WeftException(403, "not 6");
            }
        };
        WriteResult refused = store.write(new WriteOp.UpdateMany(ns, filter("{\"g\":0}"), update("{\"$set\":{\"g\":7}}"), noSix));
        assertThat(refused.ok()).isFalse();
        assertThat(store.count(ns, filter("{\"g\":7}"))).isZero();

        WriteResult d = store.write(new WriteOp.DeleteMany(ns, filter("{\"g\":{\"$gte\":2}}")));
        assertThat(d.count()).isEqualTo(13);
        assertThat(store.count(ns, Filter.all())).isEqualTo(7);
        assertThat(ids(query(null, "{\"_id\":1}", 0, 100))).containsExactly("0", "3", "6", "9", "12", "15", "18");
        assertThat(store.write(new WriteOp.DeleteMany(ns, filter("{\"g\":99}"))).count()).isZero();
    }

    @Test
    void aWriteToAMissingCollectionIs404() {
        assertStatus(() -> store.write(new WriteOp.InsertMany(new Namespace(db, "none"), List.of(obj("{}")))), 404);
    }

    @Test
    void writeAllGivesEachOpItsOwnResultAndUndoesOnlyTheFailedOnes() {
        store.createIndex(ns, index("u_1", true, "u"));
        insert("{\"_id\":0, \"u\":0, \"s\":\"x\"}");
        List<WriteResult> rs = store.writeAll(List.of(
                new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1, \"u\":1}"))),
                new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1, \"u\":11}"))),
                new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":2, \"u\":2}"), obj("{\"_id\":3, \"u\":0}"))),
                new WriteOp.UpdateOne(ns, node("0"), update("{\"$set\":{\"u\":1}}"), WriteMode.UPDATE, Optional.empty()),
                new WriteOp.UpdateOne(ns, node("0"), update("{\"$inc\":{\"s\":1}}"), WriteMode.UPDATE, Optional.empty()),
                new WriteOp.DeleteOne(ns, node("9"), Optional.empty()),
                new WriteOp.UpdateOne(ns, node("0"), update("{\"$set\":{\"v\":1}}"), WriteMode.UPDATE, Optional.empty()),
                new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":4, \"u\":4}")))));
        assertThat(rs).extracting(WriteResult::outcome).containsExactly(Outcome.CREATED, Outcome.CONFLICT,
                Outcome.CONFLICT, Outcome.CONFLICT, Outcome.INVALID, Outcome.NOT_FOUND, Outcome.UPDATED, Outcome.CREATED);
        assertThat(rs.get(3).message().orElseThrow()).contains("u_1");
        assertThat(ids(query(null, "{\"_id\":1}", 0, 10))).containsExactly("0", "1", "4");
        assertThat(get("0").get("u").asInt()).isZero();
        assertThat(get("0").get("v").asInt()).isEqualTo(1);
        assertThat(get("1").get("u").asInt()).isEqualTo(1);
        assertThat(store.count(ns, filter("{\"u\":0}"))).isEqualTo(1);
        assertThat(store.writeAll(List.of())).isEmpty();
    }

    /**
     * A version moves with every committed write and catalog change of its collection. It may
     * move more often (PostgreSQL also bumps it when its event reader or its notifications reach
     * a write), so only moves are asserted.
     */
    @Test
    void versionChangesOnEveryCommittedWriteAndCatalogChange() {
        long v0 = store.version(ns);
        insert("{\"_id\":1}");
        long v1 = store.version(ns);
        assertThat(v1).isNotEqualTo(v0);
        store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.empty()));
        long v2 = store.version(ns);
        assertThat(v2).isNotEqualTo(v1);
        store.writeAll(List.of(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":2}")))));
        long v3 = store.version(ns);
        assertThat(v3).isNotEqualTo(v2);
        store.createIndex(ns, index("a_1", false, "a"));
        assertThat(store.version(ns)).isNotEqualTo(v3);
    }

    // --- the event log ---------------------------------------------------------------------------

    @Test
    void theEventLogHoldsEveryCommittedChangeInOrder() {
        long start = eventPosition();
        insert("{\"_id\":1, \"v\":1}");
        insert("{\"_id\":1}"); // refused: no event
        store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"v\":2}, \"$unset\":{\"w\":1}}"),
                WriteMode.UPDATE, Optional.empty()));
        store.write(new WriteOp.Replace(ns, obj("{\"_id\":1, \"r\":true}"), WriteMode.UPDATE, Optional.empty()));
        store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.empty()));
        store.writeAll(List.of(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":2}"), obj("{\"_id\":3}"))),
                new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":2}")))));
        store.dropCollection(ns, Optional.empty());

        List<ChangeEvent> events = eventsAfter(start, 7);
        assertThat(events).extracting(ChangeEvent::operation).containsExactly(Operation.INSERT, Operation.UPDATE,
                Operation.REPLACE, Operation.DELETE, Operation.INSERT, Operation.INSERT, Operation.DROP);
        assertThat(events).extracting(ChangeEvent::ns).containsOnly(ns);
        for (int i = 1; i < events.size(); i++) {
            assertThat(events.get(i).seq()).isEqualTo(events.get(i - 1).seq() + 1);
        }
        assertThat(events.getFirst().seq()).isEqualTo(start + 1);
        assertThat(lastOnceSettled(events.getLast().seq())).isEqualTo(events.getLast().seq());
        assertThat(events).allSatisfy(e -> assertThat(e.wallTime()).isPositive());

        ChangeEvent inserted = events.get(0);
        assertThat(JSON.text(inserted.documentKey())).isEqualTo("1");
        assertThat(JSON.parse(inserted.fullDocument(), "doc").get("v").asInt()).isEqualTo(1);
        assertThat(inserted.previousDocument()).isNull();
        assertThat(inserted.updateDescription()).isNull();

        ChangeEvent updated = events.get(1);
        assertThat(updated.updateDescription().updatedFields().get("v").asInt()).isEqualTo(2);
        assertThat(updated.updateDescription().updatedFields().has("_etag")).isTrue();
        assertThat(updated.updateDescription().removedFields()).isNotNull();
        assertThat(JSON.parse(updated.previousDocument(), "doc").get("v").asInt()).isEqualTo(1);
        assertThat(JSON.parse(updated.fullDocument(), "doc").get("v").asInt()).isEqualTo(2);

        ChangeEvent replaced = events.get(2);
        assertThat(replaced.updateDescription()).isNull();
        assertThat(JSON.parse(replaced.fullDocument(), "doc").get("r").asBoolean()).isTrue();

        ChangeEvent deleted = events.get(3);
        assertThat(deleted.fullDocument()).isNull();
        assertThat(JSON.parse(deleted.previousDocument(), "doc").get("r").asBoolean()).isTrue();
        assertThat(events.get(6).documentKey().isNull()).isTrue();

        // reading from a position, the drop a stream would cross, positions the log never gave
        assertThat(store.eventLog().after(events.get(4).seq(), 10)).extracting(ChangeEvent::seq)
                .containsExactly(events.get(5).seq(), events.get(6).seq());
        assertThat(store.eventLog().after(events.get(1).seq(), 2)).hasSize(2);
        assertThat(store.eventLog().droppedAfter(ns, start)).hasValue(events.get(6).seq());
        assertThat(store.eventLog().droppedAfter(ns, events.get(6).seq())).isEmpty();
        assertThat(store.eventLog().droppedAfter(new Namespace(db, "x"), start)).isEmpty();
        assertStatus(() -> store.eventLog().after(events.getLast().seq() + 1000, 10), 400);
        assertThat(store.eventLog().floor()).isLessThanOrEqualTo(start);
    }

    @Test
    void commitListenersAreToldOfCommittedChanges() {
        List<ChangeEvent> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.eventLog().addCommitListener((commit, events) -> seen.addAll(events));
        insert("{\"_id\":1, \"v\":1}");
        insert("{\"_id\":1}");
        store.write(new WriteOp.UpdateOne(ns, node("1"), update("{\"$set\":{\"v\":2}}"), WriteMode.UPDATE, Optional.empty()));
        store.write(new WriteOp.DeleteOne(ns, node("1"), Optional.empty()));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (seen.size() < 3 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(seen).extracting(ChangeEvent::operation).containsExactly(Operation.INSERT, Operation.UPDATE, Operation.DELETE);
        assertThat(seen).extracting(ChangeEvent::seq).isSorted().doesNotHaveDuplicates();
    }
}
