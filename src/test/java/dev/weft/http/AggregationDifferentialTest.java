package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.aggregate.Mongomock;
import dev.weft.aggregate.RandomPipelines;
import dev.weft.core.WeftException;
import dev.weft.aggregate.Pipeline;
import dev.weft.query.QueryLimits;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random pipelines over random documents (nested objects, arrays, mixed types, missing fields):
 * Weft's answer through {@code POST /db/coll/_aggrs} (on both stores: the build runs this class
 * once per store; scans read in parts by {@link SplitScans}) must be exactly the reference evaluator's ({@link Pipeline#run}), byte for
 * byte, and equal to mongomock's (an independent implementation, run from its pinned wheel by
 * {@link Mongomock}) except where mongomock departs from MongoDB's documented behaviour: those
 * cases are {@link MongomockDeviations}, each with the page of MongoDB's manual it breaks.
 * {@code -Dweft.test.seed=N} replays one run.
 */
class AggregationDifferentialTest {
    private static final JsonMapper MAPPER = new JsonMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final int DOCUMENTS = 40;
    private static final int PIPELINES = 400;

    @Test
    void randomPipelinesAgreeWithTheReferenceEvaluatorAndMongomock() throws Exception {
        long seed = Long.getLong("weft.test.seed", 20261126L);
        List<String> failures = new ArrayList<>();
        List<String> summaries = new ArrayList<>();
        // a store that splits scans as harshly as Store.scanParts allows: a $group or $count over a
        // scan runs as partials, merged, and must still give the reference's answer byte for byte
        try (TestServer weft = new TestServer(SplitScans::wrap)) {
            Round withMongomock = round(weft, "plain", new RandomPipelines(seed, false), true, failures);
            // MongoDB's booleans are their own type, below numbers in BSON's comparison order and
            // never equal to 0 or 1, and $sum/$avg ignore them
            // (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/,
            // https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/); in
            // mongomock a boolean is Python's, for which True == 1: it groups true with 1, matches
            // {x: 1} on true and sums booleans. Pipelines over booleans are compared with the
            // reference evaluator only.
            Round withBooleans = round(weft, "booleans", new RandomPipelines(seed + 1, true), false, failures);
            summaries.add(withMongomock.toString());
            summaries.add(withBooleans.toString());
            String summary = "AggregationDifferentialTest, seed " + seed + ": " + String.join("; ", summaries);
            System.out.println(summary);
            java.nio.file.Files.writeString(java.nio.file.Path.of("target/aggregation-differential.txt"),
                    summary + "\n\n" + String.join("\n", failures));
            assertThat(failures).as("pipelines where Weft disagrees").isEmpty();
            // the comparison means something only when most pipelines run and most reach mongomock
            assertThat(withMongomock.results).isGreaterThan(PIPELINES / 2);
            assertThat(withBooleans.results).isGreaterThan(PIPELINES / 2);
            assertThat(withMongomock.comparedWithMongomock).isGreaterThan(PIPELINES / 3);
        }
    }

    /**
     * The same random pipelines on the store's own split scans, without {@link SplitScans}: on
     * SQLite with small document heads (decision 0009), so a {@code $group} or {@code $count}
     * reads heads where they stand for the documents and bodies elsewhere, in parallel parts.
     */
    @Test
    void randomPipelinesOnTheStoresOwnScansAndDocumentHeadsAgreeWithTheReferenceEvaluator() throws Exception {
        long seed = Long.getLong("weft.test.seed", 20261126L) + 2;
        List<String> failures = new ArrayList<>();
        try (TestServer weft = new TestServer("--document-head-bytes", "48", "--scan-split-min-rows", "10")) {
            RandomPipelines random = new RandomPipelines(seed, false);
            // a field no pipeline names, so that a head (at most a quarter of its body) is kept
            List<JsonNode> documents = random.documents(DOCUMENTS).stream()
                    .map(d -> (JsonNode) ((ObjectNode) d.deepCopy()).put("padding", "p".repeat(400))).toList();
            Round round = round(weft, "heads", random, documents, false, failures);
            assertThat(failures).as("pipelines where Weft disagrees, seed " + seed).isEmpty();
            assertThat(round.results).isGreaterThan(PIPELINES / 2);
        }
    }

    /** How one round went: pipelines that ran to a result, compared with mongomock, left out (by deviation). */
    private static final class Round {
        final String name;
        int results;
        int comparedWithMongomock;
        final Map<String, Integer> excluded = new TreeMap<>();

        Round(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name + ": " + PIPELINES + " pipelines, " + results + " ran to a result, " + comparedWithMongomock
                    + " compared with mongomock, left out " + excluded;
        }
    }

    private static Round round(TestServer weft, String name, RandomPipelines random, boolean mongomockToo,
                               List<String> failures) throws Exception {
        return round(weft, name, random, random.documents(DOCUMENTS), mongomockToo, failures);
    }

    private static Round round(TestServer weft, String name, RandomPipelines random, List<JsonNode> documents,
                               boolean mongomockToo, List<String> failures) throws Exception {
        Round round = new Round(name);
        List<JsonNode> pipelines = new ArrayList<>();
        for (int i = 0; i < PIPELINES; i++) {
            pipelines.add(random.pipeline());
        }
        List<Mongomock.Answer> mongomock = mongomockToo ? Mongomock.open().aggregate(documents,
                pipelines.stream().map(MongomockDeviations::inDocumentedEquivalents).toList()) : List.of();
        weft.createCollection("db", name);
        HttpResponse<String> insert = weft.post("/db/" + name, MAPPER.writeValueAsString(documents));
        assertThat(insert.statusCode()).as(insert.body()).isEqualTo(200);
        // the reference evaluator reads the documents as stored (with the _etag Weft adds)
        List<JsonNode> stored = new ArrayList<>();
        HttpResponse<String> all = weft.get("/db/" + name + "?pagesize=1000&sort=" + TestServer.q("{\"_id\":1}"));
        MAPPER.readTree(all.body()).forEach(stored::add);
        assertThat(stored).hasSize(DOCUMENTS);
        for (int i = 0; i < PIPELINES; i++) {
            JsonNode pipeline = pipelines.get(i);
            String where = name + " pipeline " + i + ": " + pipeline;
            HttpResponse<String> answer = weft.post("/db/" + name + "/_aggrs?pagesize=1000", pipeline.toString());
            String reference = reference(pipeline, stored);
            String weftSays = answer.statusCode() == 200 ? answer.body() : "error " + answer.statusCode();
            if (!weftSays.equals(reference)) {
                failures.add(where + "\n  weft:      " + weftSays + " " + (answer.statusCode() == 200 ? "" : answer.body())
                        + "\n  reference: " + reference);
                continue;
            }
            if (answer.statusCode() == 200) {
                round.results++;
            }
            if (!mongomockToo) {
                continue;
            }
            var deviation = MongomockDeviations.of(pipeline, documents, mongomock.get(i));
            if (deviation.isPresent()) {
                round.excluded.merge(deviation.get(), 1, Integer::sum);
                continue;
            }
            round.comparedWithMongomock++;
            String theirs = comparable(pipeline, mongomock.get(i));
            String ours = answer.statusCode() == 200 ? comparable(pipeline, MAPPER.readTree(answer.body())) : "error";
            if (!ours.equals(theirs)) {
                failures.add(where + "\n  weft:      " + ours + "\n  mongomock: " + theirs
                        + (mongomock.get(i) instanceof Mongomock.Failed f ? " (" + f.reason() + ")" : ""));
            }
        }
        return round;
    }

    /** The reference evaluator's answer as the HTTP API would send it, or "error 400". */
    private static String reference(JsonNode pipeline, List<JsonNode> documents) {
        try {
            List<JsonNode> out = Pipeline.parse(pipeline, QueryLimits.defaults())
                    .run(documents, Pipeline.Options.of(1 << 24, Pipeline.Collections.NONE, () -> {}));
            return MAPPER.writeValueAsString(out);
        } catch (WeftException e) {
            return "error " + e.status();
        }
    }

    private static String comparable(JsonNode pipeline, Mongomock.Answer answer) {
        return switch (answer) {
            case Mongomock.Results r -> comparable(pipeline, F.arrayNode().addAll(r.documents()));
            case Mongomock.Failed f -> "error";
            case Mongomock.Unsupported u -> "unsupported: " + u.reason();
        };
    }

    /**
     * Results in a form both sides can be compared in: numbers as long or double (JSON does not
     * say int or long), fields in name order (mongomock puts a $group's _id last; MongoDB's
     * manual gives no field order for $group output, only for $project), the arrays
     * {@code $addToSet} makes in value order (a set has none), and the documents in value order
     * unless the pipeline's order is defined (it ends in a sort and a page).
     */
    private static String comparable(JsonNode pipeline, JsonNode results) {
        List<String> sets = addToSetFields(pipeline);
        List<String> docs = new ArrayList<>();
        for (JsonNode doc : results) {
            JsonNode canonical = canonical(doc);
            if (canonical instanceof ObjectNode o) {
                o.remove("_etag"); // Weft's, not the document's: mongomock's input has none
            }
            if (canonical instanceof ObjectNode o) {
                for (String set : sets) {
                    if (o.get(set) instanceof ArrayNode a) {
                        List<JsonNode> values = new ArrayList<>();
                        a.forEach(values::add);
                        values.sort(Comparator.comparing(JsonNode::toString));
                        o.set(set, F.arrayNode().addAll(values));
                    }
                }
            }
            docs.add(canonical.toString());
        }
        JsonNode last = pipeline.get(pipeline.size() - 1);
        if (!last.has("$limit")) {
            docs.sort(Comparator.naturalOrder());
        }
        return docs.toString();
    }

    private static List<String> addToSetFields(JsonNode pipeline) {
        List<String> fields = new ArrayList<>();
        for (JsonNode stage : pipeline) {
            if (stage.get("$group") instanceof ObjectNode group) {
                group.properties().forEach(e -> {
                    if (e.getValue().has("$addToSet")) {
                        fields.add(e.getKey());
                    }
                });
            }
        }
        return fields;
    }

    static JsonNode canonical(JsonNode value) {
        if (value.isIntegralNumber()) {
            return F.numberNode(value.longValue());
        }
        if (value.isFloatingPointNumber()) {
            return F.numberNode(value.doubleValue());
        }
        if (value.isArray()) {
            ArrayNode a = F.arrayNode();
            value.forEach(v -> a.add(canonical(v)));
            return a;
        }
        if (value.isObject()) {
            ObjectNode o = F.objectNode();
            new TreeMap<>(value.propertyStream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)))
                    .forEach((k, v) -> o.set(k, canonical(v)));
            return o;
        }
        return value;
    }
}
