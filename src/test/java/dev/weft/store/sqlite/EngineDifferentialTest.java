package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import dev.weft.query.RandomQueries;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The store's engine (text prefilter in SQL, pruned streaming evaluation, parallel scans) against
 * the in-memory reference evaluator over the same random documents: every random find (filter,
 * sort, skip, limit, projection) and count answers the same. Run on PostgreSQL by
 * PostgresEngineDifferentialTest.
 */
public class EngineDifferentialTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();
    private static final Namespace NS = new Namespace("engine", "docs");

    @TempDir
    Path dir;

    @Test
    void storeAnswersLikeTheReferenceEvaluator() {
        try (SqliteStore store = StoreTesting.open(dir)) {
            check(store);
        }
    }

    /** The text prefilter runs in SQL: of 600 documents only the 3 holding the literal reach the evaluator. */
    @Test
    void prefilterLeavesTheEvaluatorOnlyDocumentsHoldingTheLiteral() {
        try (SqliteStore store = StoreTesting.open(dir)) {
            checkPrefilter(store);
        }
    }

    public void checkPrefilter(Store store) {
        Namespace ns = new Namespace("engine", "prefilter");
        store.putDatabase("engine", JSON.parseObject("{}".getBytes(), "db"), Optional.empty());
        store.putCollection(ns, JSON.parseObject("{}".getBytes(), "coll"), Optional.empty());
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            String url = i % 200 == 7 ? "https://projects.apache.org/" + i : "https://docs.example.net/" + i;
            batch.add(JSON.parseObject(("{\"_id\":" + i + ",\"links\":[{\"url\":\"" + url + "\"}],\"other\":\"pa ch\"}").getBytes(), "doc"));
        }
        assertThat(store.write(new WriteOp.InsertMany(ns, batch)).ok()).isTrue();
        java.util.concurrent.atomic.AtomicInteger evaluated = new java.util.concurrent.atomic.AtomicInteger();
        Filter regex = Filter.parse(JSON.parse("{\"links.url\":{\"$regex\":\".*pach.*\"}}", "filter"), LIMITS);
        Filter counting = new Filter() {
            @Override
            public boolean matches(JsonNode document) {
                evaluated.incrementAndGet();
                return regex.matches(document);
            }

            @Override
            public Optional<List<dev.weft.query.KeyRange>> keyRanges(List<IndexField> fields, boolean multikey) {
                return regex.keyRanges(fields, multikey);
            }

            @Override
            public java.util.Set<String> paths() {
                return regex.paths();
            }

            @Override
            public dev.weft.query.TextCondition requiredText() {
                return regex.requiredText();
            }
        };
        List<Integer> found = new ArrayList<>();
        store.find(ns, new FindQuery(counting, Sort.parse("{\"_id\":1}", LIMITS), 0, 100, Optional.empty()),
                d -> found.add(JSON.parse(d.json(), "doc").get("_id").asInt()));
        assertThat(found).containsExactly(7, 207, 407);
        assertThat(evaluated.get()).isEqualTo(3);
        assertThat(store.count(ns, counting)).isEqualTo(3);
        assertThat(evaluated.get()).isEqualTo(6);
    }

    /**
     * Heads ({@code DocumentHead}) of a budget that holds some fields of a document and not
     * others, a field small in one document and nested or large in the next, and a third of the
     * rows with no head at all (as written before heads): the same answers.
     */
    @Test
    void headsOfAnySizeOrNoneAnswerLikeTheReferenceEvaluator() {
        for (String budget : List.of("24", "48", "96")) {
            Path data = dir.resolve("heads-" + budget);
            try (SqliteStore store = StoreTesting.open(data, "--document-head-bytes", budget)) {
                check(store, () -> withoutHeadsEveryThirdRow(data));
            }
        }
    }

    /** Sets head and rest NULL in about a third of the document rows, as a data directory written before heads has them. */
    static void withoutHeadsEveryThirdRow(Path data) {
        try (var c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + data.resolve("weft.db"));
             var s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (var rs = s.executeQuery("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'd[0-9]*'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            int changed = 0;
            for (String table : tables) {
                changed += s.executeUpdate("UPDATE " + table + " SET head = NULL, rest = NULL WHERE length(body) % 3 = 0");
            }
            assertThat(changed).isBetween(50, 350);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    public void check(Store store) {
        check(store, () -> {});
    }

    /** {@link #check(Store)}, {@code afterInsert} run once the documents are stored. */
    public void check(Store store, Runnable afterInsert) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomQueries rq = new RandomQueries(seed);
        store.putDatabase("engine", JSON.parseObject("{}".getBytes(), "db"), Optional.empty());
        store.putCollection(NS, JSON.parseObject("{}".getBytes(), "coll"), Optional.empty());
        store.createIndex(NS, new IndexSpec("s_1", List.of(new IndexField("s", 1)), false));
        List<ObjectNode> docs = new ArrayList<>();
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            ObjectNode d = rq.document(i);
            batch.add(d.deepCopy());
            docs.add(JSON.parseObject(JSON.bytes(d), "doc"));
        }
        assertThat(store.write(new WriteOp.InsertMany(NS, batch)).ok()).isTrue();
        afterInsert.run();
        store.createIndex(NS, new IndexSpec("ab_1", List.of(new IndexField("a.b", 1)), false));
        int compared = 0;
        for (int q = 0; q < 500; q++) {
            String filterText = rq.filter();
            String sortText = rq.sort();
            String projectionText = rq.projection();
            Filter filter;
            Sort sort;
            Projection projection;
            try {
                filter = Filter.parse(JSON.parse(filterText, "filter"), LIMITS);
                sort = sortText == null ? Sort.ID_DESCENDING : Sort.parse(sortText, LIMITS);
                projection = projectionText == null ? null : Projection.parse(JSON.parse(projectionText, "keys"));
            } catch (WeftException e) {
                continue;
            }
            long skip = rq.random().nextInt(3) == 0 ? rq.random().nextInt(30) : 0;
            long limit = 1 + rq.random().nextInt(50);
            String context = "seed=" + seed + " filter=" + filterText + " sort=" + sortText + " keys=" + projectionText
                    + " skip=" + skip + " limit=" + limit;
            Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
            List<String> expected = docs.stream().filter(filter::matches).sorted(order).skip(skip).limit(limit)
                    .map(d -> shown(d, projection)).toList();
            List<String> actual = new ArrayList<>();
            store.find(NS, new FindQuery(filter, sort, skip, limit, Optional.empty()),
                    d -> actual.add(shown(JSON.parseObject(d.json(), "doc"), projection)));
            assertThat(actual).as(context).isEqualTo(expected);
            if (q % 3 == 0) {
                assertThat(store.count(NS, filter)).as(context + " count").isEqualTo(docs.stream().filter(filter::matches).count());
            }
            compared++;
        }
        System.out.printf("engine differential: seed %d, %d queries compared%n", seed, compared);
        assertThat(compared).isGreaterThan(400);
    }

    private static String shown(ObjectNode stored, Projection projection) {
        ObjectNode d = stored.deepCopy();
        d.remove("_etag");
        return JSON.text(projection == null ? d : projection.apply(d));
    }
}
