package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RESTHeart's _aggrs and Weft's ad-hoc pipelines through the HTTP API of a real server (run on both stores). */
class AggregationEndpointsTest {
    static TestServer weft;

    static final String BOOKS = """
            [{"_id":1,"author":"ann","title":"a.b.c","pages":100,"year":2001},
             {"_id":2,"author":"bob","title":"x","pages":50,"year":2001},
             {"_id":3,"author":"ann","title":"d.e","pages":300,"year":2010},
             {"_id":4,"author":"cy","title":"f","pages":null,"year":2010},
             {"_id":5,"author":"bob","title":"g.h","year":2020}]""";

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "books");
        assertThat(weft.post("/db/books", BOOKS).statusCode()).isEqualTo(200);
        // RESTHeart's escapes: _$ for $, :: for a dot; a variable with and without default; $ifvar
        HttpResponse<String> put = weft.put("/db/books", """
                {"aggrs":[
                  {"type":"pipeline","uri":"by-author","stages":[
                    {"_$match":{"year":{"_$gte":{"$var":["from",0]}}}},
                    {"_$group":{"_id":"$author","n":{"_$sum":1},"pages":{"_$sum":"$pages"}}},
                    {"_$sort":{"_id":1}}]},
                  {"uri":"of-author","stages":[{"$match":{"author":{"$var":"who"}}},{"$project":{"_id":1}},{"$sort":{"_id":1}}]},
                  {"uri":"paged","stages":[
                    {"$sort":{"_id":1}},
                    {"$skip":{"$var":["options.skip",0]}},
                    {"$limit":{"$var":["options.limit",100]}},
                    {"$ifvar":["options.sort",{"$sort":{"$var":"options.sort"}}]},
                    {"$project":{"_id":1}}]},
                  {"uri":"nested","stages":[{"$project":{"_id":0,"t::x":"$title"}},{"$limit":1}]}]}""");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void namedAggregationRunsWithItsVariablesAndEscapes() throws Exception {
        HttpResponse<String> all = weft.get("/db/books/_aggrs/by-author");
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        assertThat(all.body()).isEqualTo("[{\"_id\":\"ann\",\"n\":2,\"pages\":400},{\"_id\":\"bob\",\"n\":2,\"pages\":50},"
                + "{\"_id\":\"cy\",\"n\":1,\"pages\":0}]");
        assertThat(weft.get("/db/books/_aggrs/by-author?avars=" + q("{'from': 2010}")).body())
                .isEqualTo("[{\"_id\":\"ann\",\"n\":1,\"pages\":300},{\"_id\":\"bob\",\"n\":1,\"pages\":0},"
                        + "{\"_id\":\"cy\",\"n\":1,\"pages\":0}]");
        assertThat(weft.get("/db/books/_aggrs/of-author?avars=" + q("{\"who\":\"bob\"}")).body())
                .isEqualTo("[{\"_id\":2},{\"_id\":5}]");
        assertThat(weft.get("/db/books/_aggrs/nested").body()).isEqualTo("[{\"t\":{\"x\":\"a.b.c\"}}]");
    }

    @Test
    void restheartsVarOperatorFeature() throws Exception {
        assertThat(weft.get("/db/books/_aggrs/paged").body()).isEqualTo("[{\"_id\":1},{\"_id\":2},{\"_id\":3},{\"_id\":4},{\"_id\":5}]");
        assertThat(weft.get("/db/books/_aggrs/paged?avars=" + q("{\"options\":{\"skip\":1,\"limit\":2}}")).body())
                .isEqualTo("[{\"_id\":2},{\"_id\":3}]");
        assertThat(weft.get("/db/books/_aggrs/paged?avars=" + q("{\"options\":{\"limit\":1,\"sort\":{\"_id\":-1}}}")).body())
                .isEqualTo("[{\"_id\":1}]");
    }

    @Test
    void variablesAreValuesNeverOperators() throws Exception {
        HttpResponse<String> missing = weft.get("/db/books/_aggrs/of-author");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("who");
        HttpResponse<String> operator = weft.get("/db/books/_aggrs/of-author?avars=" + q("{\"who\":{\"$ne\":null}}"));
        assertThat(operator.statusCode()).isEqualTo(400);
        assertThat(operator.body()).contains("$ne");
        // a string that looks like an operator matches only itself
        assertThat(weft.get("/db/books/_aggrs/of-author?avars=" + q("{\"who\":\"$author\"}")).body()).isEqualTo("[]");
        assertThat(weft.get("/db/books/_aggrs/nope").statusCode()).isEqualTo(404);
    }

    @Test
    void pagesAndNdjson() throws Exception {
        HttpResponse<String> page = weft.get("/db/books/_aggrs/by-author?page=2&pagesize=2");
        assertThat(page.body()).isEqualTo("[{\"_id\":\"cy\",\"n\":1,\"pages\":0}]");
        assertThat(weft.get("/db/books/_aggrs/by-author?page=3&pagesize=2").body()).isEqualTo("[]");
        assertThat(weft.get("/db/books/_aggrs/by-author?pagesize=0").body()).isEqualTo("[]");
        assertThat(weft.get("/db/books/_aggrs/by-author?pagesize=100000").statusCode()).isEqualTo(400);
        // a streaming pipeline stops reading once the page is full; the store's read ends cleanly
        for (int i = 0; i < 3; i++) {
            assertThat(weft.post("/db/books/_aggrs?pagesize=2", "[{\"$project\":{\"_id\":1}}]").body())
                    .isEqualTo("[{\"_id\":1},{\"_id\":2}]");
        }
        assertThat(weft.get("/db/books/_size").body()).isEqualTo("{\"_size\":5}");
        HttpResponse<String> ndjson = weft.get("/db/books/_aggrs/by-author?pagesize=1", "Accept", "application/x-ndjson");
        assertThat(ndjson.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
        assertThat(ndjson.body()).isEqualTo("{\"_id\":\"ann\",\"n\":2,\"pages\":400}\n{\"_id\":\"bob\",\"n\":2,\"pages\":50}\n"
                + "{\"_id\":\"cy\",\"n\":1,\"pages\":0}\n");
    }

    @Test
    void aBadStoredPipelineIsRefusedOnPutAndNothingIsStored() throws Exception {
        weft.createCollection("db", "bad");
        for (String aggrs : new String[] {
                "[{\"uri\":\"x\",\"stages\":[{\"$frob\":{}}]}]",
                "[{\"uri\":\"x\",\"stages\":[{\"$group\":{\"_id\":null,\"n\":{\"$median\":1}}}]}]",
                "[{\"uri\":\"x\",\"stages\":[{\"$project\":{\"v\":{\"$nope\":1}}}]}]",
                "[{\"uri\":\"x\",\"type\":\"mapReduce\",\"stages\":[]}]",
                "[{\"uri\":\"x\",\"stages\":[]},{\"uri\":\"x\",\"stages\":[]}]",
                "[{\"stages\":[]}]",
                "{\"uri\":\"x\"}"}) {
            HttpResponse<String> r = weft.put("/db/bad", "{\"aggrs\":" + aggrs + "}");
            assertThat(r.statusCode()).as(aggrs + " -> " + r.body()).isEqualTo(400);
        }
        assertThat(weft.put("/db/bad", "{\"aggrs\":[{\"uri\":\"x\",\"stages\":[{\"$frob\":{}}]}]}").body()).contains("$frob");
        assertThat(weft.get("/db/bad/_meta").body()).doesNotContain("aggrs");
        assertThat(weft.get("/db/bad/_aggrs/x").statusCode()).isEqualTo(404);
    }

    @Test
    void adhocPipelinesForAdmins() throws Exception {
        HttpResponse<String> r = weft.post("/db/books/_aggrs",
                "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$title\",\".\"]}}}}}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("[{\"_id\":null,\"n\":9}]");
        assertThat(weft.post("/db/books/_aggrs", "[{\"$match\":{\"year\":2010}},{\"$count\":\"n\"}]").body())
                .isEqualTo("[{\"n\":2}]");
        assertThat(weft.post("/db/books/_aggrs", "[{\"$lookup\":{\"from\":\"books\",\"localField\":\"author\","
                + "\"foreignField\":\"author\",\"as\":\"same\"}},{\"$project\":{\"n\":{\"$size\":\"$same\"}}},{\"$sort\":{\"_id\":1}}]")
                .body()).isEqualTo("[{\"_id\":1,\"n\":2},{\"_id\":2,\"n\":2},{\"_id\":3,\"n\":2},{\"_id\":4,\"n\":1},{\"_id\":5,\"n\":2}]");
        HttpResponse<String> unknown = weft.post("/db/books/_aggrs", "[{\"$project\":{\"v\":{\"$frobnicate\":1}}}]");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("$frobnicate").doesNotContain("Exception");
        HttpResponse<String> typeError = weft.post("/db/books/_aggrs", "[{\"$project\":{\"v\":{\"$size\":\"$title\"}}}]");
        assertThat(typeError.statusCode()).isEqualTo(400);
        assertThat(typeError.body()).contains("$size");
        assertThat(weft.post("/db/books/_aggrs", "{\"$match\":{}}").statusCode()).isEqualTo(400);
        assertThat(weft.post("/db/nothere/_aggrs", "[]").statusCode()).isEqualTo(404);
    }

    @Test
    void blockingStagesStopAtTheMemorySetting() throws Exception {
        try (TestServer small = new TestServer("--aggregation-memory-bytes", "4096")) {
            small.createCollection("db", "c");
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 100; i++) {
                docs.append(i == 0 ? "" : ",").append("{\"_id\":").append(i).append(",\"s\":\"").append("x".repeat(100)).append("\"}");
            }
            small.post("/db/c", docs.append("]").toString());
            HttpResponse<String> r = small.post("/db/c/_aggrs", "[{\"$group\":{\"_id\":\"$_id\",\"s\":{\"$push\":\"$s\"}}}]");
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("exceeded memory limit", "aggregation-memory-bytes");
            // $count holds nothing; a sort the store serves by _id holds nothing either
            assertThat(small.post("/db/c/_aggrs", "[{\"$count\":\"n\"}]").body()).isEqualTo("[{\"n\":100}]");
            assertThat(small.post("/db/c/_aggrs", "[{\"$sort\":{\"_id\":-1}},{\"$project\":{\"_id\":1}},{\"$limit\":1}]").body())
                    .isEqualTo("[{\"_id\":99}]");
            // a sort no index serves is the pipeline's, within the setting; with an index the store streams it
            String bySize = "[{\"$sort\":{\"s\":1,\"_id\":1}},{\"$project\":{\"_id\":1}},{\"$skip\":98}]";
            HttpResponse<String> unindexed = small.post("/db/c/_aggrs", bySize);
            assertThat(unindexed.statusCode()).isEqualTo(400);
            assertThat(unindexed.body()).contains("exceeded memory limit", "$sort");
            assertThat(small.put("/db/c/_indexes/by-s", "{\"keys\":{\"s\":1,\"_id\":1}}").statusCode()).isEqualTo(201);
            assertThat(small.post("/db/c/_aggrs", bySize).body()).isEqualTo("[{\"_id\":98},{\"_id\":99}]");
        }
    }

    @Test
    void theQueryTimeLimitApplies() throws Exception {
        try (TestServer slow = new TestServer(AggregationEndpointsTest::slowFinds, "--query-timeout-ms", "200")) {
            slow.createCollection("db", "c");
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 100; i++) {
                docs.append(i == 0 ? "" : ",").append("{\"_id\":").append(i).append("}");
            }
            slow.post("/db/c", docs.append("]").toString());
            HttpResponse<String> r = slow.post("/db/c/_aggrs", "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":1}}}]");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
            assertThat(r.body()).contains("operation exceeded time limit");
        }
    }

    private static void late(Consumer<StoredDocument> sink, StoredDocument doc) {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sink.accept(doc);
    }

    /** A store whose finds and scans in parts hand each document over 10 ms late, as a slow scan would. */
    static Store slowFinds(Store store) {
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
            if (method.getName().equals("scanParts")) {
                int at = args.length - 3; // scanParts(ns, filter, [names,] mode, parts, sinks)
                @SuppressWarnings("unchecked")
                Consumer<StoredDocument> sink = ((java.util.function.IntFunction<Consumer<StoredDocument>>) args[at + 2]).apply(0);
                store.find((Namespace) args[0], new FindQuery((dev.weft.query.Filter) args[1], null, 0, Long.MAX_VALUE,
                        java.util.Optional.empty()), (dev.weft.core.ReadMode) args[at], doc -> {
                    late(sink, doc);
                });
                return null;
            }
            if (method.getName().equals("find") && args != null && args.length == 4) {
                @SuppressWarnings("unchecked")
                Consumer<StoredDocument> sink = (Consumer<StoredDocument>) args[3];
                store.find((Namespace) args[0], (FindQuery) args[1], (dev.weft.core.ReadMode) args[2], doc -> {
                    late(sink, doc);
                });
                return null;
            }
            try {
                return method.invoke(store, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
