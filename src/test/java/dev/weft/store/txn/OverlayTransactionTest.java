package dev.weft.store.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.Update;
import dev.weft.store.ChangeEvent;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.Transaction;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.store.sqlite.SqliteStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/** The overlay of a SQLite transaction: reads merged over the store, savepoint-like ops, claims, the commit's checks. */
class OverlayTransactionTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();
    private static final Namespace NS = new Namespace("db", "c");

    private Path dir;
    private SqliteStore store;
    private final List<List<ChangeEvent>> commits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("weft-overlay");
        store = new SqliteStore(Settings.parse(new String[] {"--data", dir.toString(), "--txn-max-bytes", "4096"}, Map.of()), JSON);
        store.putDatabase("db", JSON.parseObject("{}".getBytes(), "t"), Optional.empty());
        store.putCollection(NS, JSON.parseObject("{}".getBytes(), "t"), Optional.empty());
        store.writeAll(List.of(insert("{\"_id\":\"a\",\"n\":1}"), insert("{\"_id\":\"b\",\"n\":2}"), insert("{\"_id\":\"c\",\"n\":3}")));
        store.eventLog().addCommitListener((commit, events) -> commits.add(events));
    }

    @AfterEach
    void close() throws Exception {
        store.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static ObjectNode obj(String json) {
        return (ObjectNode) JSON.parse(json, "test");
    }

    private static WriteOp insert(String json) {
        return new WriteOp.InsertMany(NS, List.of(obj(json)));
    }

    private static WriteOp set(String id, String update) {
        return new WriteOp.UpdateOne(NS, StringNode.valueOf(id), Update.parse(JSON.parse(update, "u"), LIMITS),
                WriteMode.UPDATE, Optional.empty());
    }

    private static WriteResult one(Transaction t, WriteOp op) {
        return t.writeAll(List.of(op)).getFirst();
    }

    private static List<String> ids(Transaction t, Filter filter, String sort, long skip, long limit) {
        List<String> ids = new ArrayList<>();
        t.find(NS, new FindQuery(filter, Sort.parse(sort, LIMITS), skip, limit, Optional.empty()),
                d -> ids.add(JSON.parse(d.json(), "d").get("_id").asString()));
        return ids;
    }

    private Optional<JsonNode> committed(String id) {
        return store.get(NS, StringNode.valueOf(id)).map(StoredDocument::json).map(b -> JSON.parse(b, "d"));
    }

    @Test
    void readsLayTheOverlayOverTheStore() {
        Transaction t = store.begin();
        assertThat(one(t, insert("{\"_id\":\"d\",\"n\":0}")).ok()).isTrue();
        assertThat(one(t, set("b", "{\"$set\":{\"n\":20}}")).ok()).isTrue();
        assertThat(one(t, new WriteOp.DeleteOne(NS, StringNode.valueOf("c"), Optional.empty())).ok()).isTrue();

        assertThat(ids(t, Filter.all(), "{\"n\":1}", 0, 10)).containsExactly("d", "a", "b");
        assertThat(ids(t, Filter.all(), "{\"n\":-1}", 1, 1)).containsExactly("a");
        assertThat(ids(t, Filter.parse(JSON.parse("{\"n\":{\"$gt\":1}}", "f"), LIMITS), "{\"_id\":1}", 0, 10))
                .containsExactly("b");
        assertThat(t.count(NS, Filter.all())).isEqualTo(3);
        assertThat(t.count(NS, Filter.parse(JSON.parse("{\"n\":{\"$gte\":2}}", "f"), LIMITS))).isEqualTo(1);
        assertThat(t.get(NS, StringNode.valueOf("c"))).isEmpty();
        assertThat(JSON.parse(t.get(NS, StringNode.valueOf("b")).orElseThrow().json(), "d").get("n").asInt()).isEqualTo(20);

        // the store is untouched until the commit
        assertThat(committed("d")).isEmpty();
        assertThat(committed("b").orElseThrow().get("n").asInt()).isEqualTo(2);
        assertThat(committed("c")).isPresent();
        assertThat(commits).isEmpty();

        t.commit();
        assertThat(t.open()).isFalse();
        assertThat(committed("d")).isPresent();
        assertThat(committed("b").orElseThrow().get("n").asInt()).isEqualTo(20);
        assertThat(committed("c")).isEmpty();
        assertThat(commits).hasSize(1);
        assertThat(commits.getFirst()).extracting(ChangeEvent::operation)
                .containsExactly(ChangeEvent.Operation.INSERT, ChangeEvent.Operation.UPDATE, ChangeEvent.Operation.DELETE);
        // the stored bytes are those the transaction read, its _etag included
        assertThat(JSON.parse(commits.getFirst().get(1).fullDocument(), "e")).isEqualTo(committed("b").orElseThrow());
    }

    @Test
    void aRefusedOpLeavesNoTraceAndTheTransactionGoesOn() {
        Transaction t = store.begin();
        assertThat(one(t, insert("{\"_id\":\"x\"}")).ok()).isTrue();
        WriteResult duplicate = t.writeAll(List.of(insert("{\"_id\":\"y\"}"), insert("{\"_id\":\"a\"}"))).get(1);
        assertThat(duplicate.outcome()).isEqualTo(WriteResult.Outcome.CONFLICT);
        WriteOp.ResultCheck refuseBig = (before, after) -> {
            if (after.get("n").asInt() > 2) {
                throw WeftException.badRequest("too big");
            }
        };
        // a bulk update refused on its last document undoes the ones it had changed
        WriteResult bulk = one(t, new WriteOp.UpdateMany(NS, Filter.all(),
                Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "u"), LIMITS), (before, after) -> {
                    if (after.has("n")) {
                        refuseBig.admit(before, after);
                    }
                }));
        assertThat(bulk.outcome()).isEqualTo(WriteResult.Outcome.INVALID);
        assertThat(ids(t, Filter.all(), "{\"_id\":1}", 0, 10)).containsExactly("a", "b", "c", "x", "y");
        assertThat(JSON.parse(t.get(NS, StringNode.valueOf("a")).orElseThrow().json(), "d").get("n").asInt()).isEqualTo(1);
        t.commit();
        assertThat(committed("x")).isPresent();
        assertThat(committed("y")).isPresent();
        assertThat(committed("a").orElseThrow().get("n").asInt()).isEqualTo(1);
    }

    @Test
    void theFirstWriterOfADocumentWinsAndTheSecondIsAborted() {
        Transaction first = store.begin();
        Transaction second = store.begin();
        assertThat(one(first, set("a", "{\"$set\":{\"n\":10}}")).ok()).isTrue();
        assertThatThrownBy(() -> one(second, set("a", "{\"$set\":{\"n\":20}}")))
                .isInstanceOfSatisfying(WeftException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.getMessage()).isEqualTo(TxnErrors.WRITE_CONFLICT);
                });
        assertThat(second.open()).isFalse();
        assertThatThrownBy(second::commit).hasMessage(TxnErrors.NOT_IN_PROGRESS);
        first.commit();
        assertThat(committed("a").orElseThrow().get("n").asInt()).isEqualTo(10);
        // claims are released at the end: a later transaction writes freely
        Transaction third = store.begin();
        assertThat(one(third, set("a", "{\"$set\":{\"n\":30}}")).ok()).isTrue();
        third.abort();
        assertThat(committed("a").orElseThrow().get("n").asInt()).isEqualTo(10);
    }

    @Test
    void aCommitFindingADocumentChangedSinceItWasReadAppliesNothing() {
        Transaction t = store.begin();
        assertThat(one(t, set("a", "{\"$set\":{\"n\":10}}")).ok()).isTrue();
        assertThat(one(t, insert("{\"_id\":\"new\"}")).ok()).isTrue();
        store.write(set("a", "{\"$set\":{\"n\":99}}"));
        assertThatThrownBy(t::commit).isInstanceOfSatisfying(WeftException.class, e -> assertThat(e.status()).isEqualTo(409));
        assertThat(t.open()).isFalse();
        assertThat(committed("a").orElseThrow().get("n").asInt()).isEqualTo(99);
        assertThat(committed("new")).isEmpty();

        // an insert meeting a document inserted outside since is a conflict too
        Transaction u = store.begin();
        assertThat(one(u, insert("{\"_id\":\"late\",\"by\":\"txn\"}")).ok()).isTrue();
        store.write(insert("{\"_id\":\"late\",\"by\":\"outside\"}"));
        assertThatThrownBy(u::commit).hasMessageContaining(TxnErrors.WRITE_CONFLICT);
        assertThat(committed("late").orElseThrow().get("by").asString()).isEqualTo("outside");
    }

    @Test
    void txnMaxBytesRefusesTheOpThatPassesItAndKeepsTheRest() {
        Transaction t = store.begin();
        String big = "x".repeat(1500);
        assertThat(one(t, insert("{\"_id\":\"big1\",\"s\":\"" + big + "\"}")).ok()).isTrue();
        assertThat(one(t, insert("{\"_id\":\"big2\",\"s\":\"" + big + "\"}")).ok()).isTrue();
        assertThatThrownBy(() -> one(t, insert("{\"_id\":\"big3\",\"s\":\"" + big + "\"}")))
                .isInstanceOfSatisfying(WeftException.class, e -> {
                    assertThat(e.status()).isEqualTo(413);
                    assertThat(e.getMessage()).contains("txn-max-bytes");
                });
        assertThat(t.open()).isTrue();
        assertThat(t.get(NS, StringNode.valueOf("big3"))).isEmpty();
        t.commit();
        assertThat(committed("big2")).isPresent();
        assertThat(committed("big3")).isEmpty();
    }
}
