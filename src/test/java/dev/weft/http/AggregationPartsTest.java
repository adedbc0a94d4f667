package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.store.FindQuery;
import dev.weft.store.Store;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a pipeline reaches the store (run on both stores): its leading {@code $match $sort $skip
 * $limit} as the store's query, and a {@code $group} or {@code $count} over a scan read in parts
 * ({@link SplitScans}: shuffled, every part on its own thread), whose merged partials give
 * exactly what one pass in {@code _id} order gives.
 */
class AggregationPartsTest {
    static TestServer weft;
    static final List<String> READS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer(store -> recording(SplitScans.wrap(store)), "--aggregation-memory-bytes", "200000");
        weft.createCollection("db", "c");
        StringBuilder docs = new StringBuilder("[");
        for (int i = 1; i <= 200; i++) {
            // k: 1 (an int) first, 1.0 (a double) later: a group is named by its first input's key
            String k = i % 3 == 0 ? (i < 100 ? "1" : "1.0") : "\"k" + (i % 3) + "\"";
            docs.append(i == 1 ? "" : ",").append("{\"_id\":").append(i).append(",\"k\":").append(k)
                    .append(",\"n\":").append(i % 7 == 0 ? (i % 2 == 0 ? "7" : "7.0") : String.valueOf(i % 7)).append(",\"pad\":\"").append("x".repeat(i % 5)).append("\"}");
        }
        assertThat(weft.post("/db/c", docs.append("]").toString()).statusCode()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @BeforeEach
    void clear() {
        READS.clear();
    }

    /** Records each read the http layer asks of the store: "find <query>" or "scanParts <filter paths>". */
    static Store recording(Store store) {
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
            if (method.getName().equals("find") && args.length == 4 && args[1] instanceof FindQuery q) {
                READS.add("find filter " + q.filter().paths() + " sort " + q.sort().fields() + " skip " + q.skip() + " limit " + q.limit());
            } else if (method.getName().equals("scanParts")) {
                READS.add("scanParts filter " + ((Filter) args[1]).paths());
            }
            try {
                return method.invoke(store, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @Test
    void leadingMatchSortSkipLimitAreTheStoresQuery() throws Exception {
        HttpResponse<String> r = weft.post("/db/c/_aggrs",
                "[{\"$match\":{\"n\":{\"$gte\":3}}},{\"$sort\":{\"_id\":-1}},{\"$skip\":2},{\"$limit\":3},{\"$project\":{\"_id\":1}}]");
        assertThat(r.body()).isEqualTo("[{\"_id\":196},{\"_id\":195},{\"_id\":194}]");
        assertThat(READS).containsExactly("find filter [n] sort [IndexField[path=_id, direction=-1]] skip 2 limit 3");
    }

    @Test
    void groupsAndCountsOverALeadingMatchRunInParts() throws Exception {
        HttpResponse<String> r = weft.post("/db/c/_aggrs", "[{\"$match\":{\"n\":{\"$gte\":3}}},{\"$count\":\"total\"}]");
        assertThat(r.body()).isEqualTo("[{\"total\":142}]");
        assertThat(READS).containsExactly("scanParts filter [n]");
        READS.clear();
        // a $sort before the $group orders its input: one range, in that order
        weft.post("/db/c/_aggrs", "[{\"$sort\":{\"n\":1}},{\"$group\":{\"_id\":null,\"f\":{\"$first\":\"$_id\"}}}]");
        assertThat(READS).hasSize(1).allMatch(read -> read.startsWith("find"));
    }

    @Test
    void mergedPartialsGiveWhatOnePassInIdOrderGives() throws Exception {
        String pipeline = "[{\"$match\":{\"_id\":{\"$lte\":150}}},{\"$addFields\":{\"m\":{\"$mod\":[\"$_id\",4]}}},"
                + "{\"$group\":{\"_id\":\"$k\",\"first\":{\"$first\":\"$_id\"},\"last\":{\"$last\":\"$_id\"},"
                + "\"ids\":{\"$push\":\"$_id\"},\"ms\":{\"$addToSet\":\"$m\"},\"min\":{\"$min\":\"$n\"},\"max\":{\"$max\":\"$n\"},"
                + "\"sum\":{\"$sum\":\"$n\"},\"avg\":{\"$avg\":\"$n\"},\"c\":{\"$count\":{}}}},{\"$sort\":{\"c\":-1,\"_id\":1}}]";
        HttpResponse<String> r = weft.post("/db/c/_aggrs?pagesize=10", pipeline);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(READS).containsExactly("scanParts filter [_id]");
        var groups = new tools.jackson.databind.json.JsonMapper().readTree(r.body());
        assertThat(groups).hasSize(3);
        var numbers = groups.get(0); // three groups of 50: numbers sort before strings
        // k 1 (ids 3..99) and 1.0 (ids 102..150) are one group, named 1 as its first input was
        assertThat(numbers.get("_id").toString()).isEqualTo("1");
        assertThat(numbers.get("first").asInt()).isEqualTo(3);
        assertThat(numbers.get("last").asInt()).isEqualTo(150);
        assertThat(numbers.get("ids").toString()).startsWith("[3,6,9,12,").endsWith(",147,150]");
        assertThat(numbers.get("ms").toString()).isEqualTo("[3,2,1,0]");
        // n is 7 (even _id) or 7.0 (odd) for multiples of 7: of equal values $max keeps the first
        assertThat(numbers.get("max").toString()).isEqualTo("7.0"); // _id 21 before 42
        assertThat(groups.get(2).get("_id").asString()).isEqualTo("k2");
        assertThat(groups.get(2).get("max").toString()).isEqualTo("7"); // _id 14 before 35
        assertThat(numbers.get("min").toString()).isEqualTo("1");
        assertThat(numbers.get("sum").toString()).isEqualTo("199.0");
        assertThat(groups).allSatisfy(g -> assertThat(g.get("c").asInt()).isEqualTo(50));
    }

    @Test
    void aGroupEvaluatedOnStoredBytesAnswersAsTheReference() throws Exception {
        // k: "k1", "k2", 1 and 1.0 (one group, named 1); n: ints, and 7 or 7.0; pad: "" to "xxxx"
        String group = "{\"$group\":{\"_id\":\"$k\",\"sum\":{\"$sum\":\"$n\"},\"avg\":{\"$avg\":\"$n\"},\"c\":{\"$count\":{}},"
                + "\"pieces\":{\"$sum\":{\"$size\":{\"$split\":[\"$pad\",\"x\"]}}},\"none\":{\"$sum\":\"$nothing\"}}}";
        HttpResponse<String> onBytes = weft.post("/db/c/_aggrs", "[" + group + "]");
        assertThat(onBytes.statusCode()).as(onBytes.body()).isEqualTo(200);
        assertThat(READS).containsExactly("scanParts filter []");
        // a $set first: each document is parsed and run through the reference evaluator
        HttpResponse<String> reference = weft.post("/db/c/_aggrs", "[{\"$set\":{\"zz\":1}}," + group + "]");
        assertThat(onBytes.body()).isEqualTo(reference.body());
        assertThat(onBytes.body()).isEqualTo("[{\"_id\":1,\"sum\":263.0,\"avg\":3.984848484848485,\"c\":66,\"pieces\":199,\"none\":0},"
                + "{\"_id\":\"k1\",\"sum\":267.0,\"avg\":3.985074626865672,\"c\":67,\"pieces\":202,\"none\":0},"
                + "{\"_id\":\"k2\",\"sum\":264.0,\"avg\":3.9402985074626864,\"c\":67,\"pieces\":199,\"none\":0}]");
        // $split of a number: MongoDB's 400 from the evaluation on bytes too
        HttpResponse<String> wrong = weft.post("/db/c/_aggrs",
                "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$n\",\"x\"]}}}}}]");
        assertThat(wrong.statusCode()).isEqualTo(400);
        assertThat(wrong.body()).contains("$split");
    }

    @Test
    void everyPartSeesTheSameNow() throws Exception {
        HttpResponse<String> r = weft.post("/db/c/_aggrs",
                "[{\"$group\":{\"_id\":null,\"nows\":{\"$addToSet\":\"$$NOW\"}}},{\"$project\":{\"n\":{\"$size\":\"$nows\"}}}]");
        assertThat(r.body()).isEqualTo("[{\"_id\":null,\"n\":1}]");
        assertThat(READS).containsExactly("scanParts filter []");
    }

    @Test
    void theMemorySettingBoundsThePartsTogether() throws Exception {
        HttpResponse<String> r = weft.post("/db/c/_aggrs",
                "[{\"$group\":{\"_id\":null,\"all\":{\"$push\":{\"a\":\"$pad\",\"b\":\"$pad\",\"c\":\"$$ROOT\"}}}}]");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("exceeded memory limit", "aggregation-memory-bytes");
        assertThat(READS).containsExactly("scanParts filter []");
    }
}
