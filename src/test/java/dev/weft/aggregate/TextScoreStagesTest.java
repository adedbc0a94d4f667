package dev.weft.aggregate;

import static dev.weft.aggregate.A.j;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.TextSearch;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * MongoDB's textScore metadata in a pipeline, one row per rule: the stages after a leading
 * {@code $text} match, the documents the store hands them with their scores, and what comes out;
 * then the pipelines MongoDB refuses, with its words.
 */
class TextScoreStagesTest {
    private static final String TEXT = "{$match: {$text: {$search: 'word'}}}";
    private static final String DOCS = "[{_id: 1, n: 1, tags: ['a', 'b']}, {_id: 2, n: 2}, {_id: 3, n: 1}, {_id: 4, n: 2}]";
    private static final String SCORES = "[1.5, 3.0, 1.5, 2.0]";

    static Arguments row(String rule, String stages, String expected) {
        return Arguments.of(rule, stages, expected);
    }

    static Stream<Arguments> carried() {
        return Stream.of(
                row("$meta in $project", "[{$project: {_id: 1, s: {$meta: 'textScore'}}}]",
                        "[{_id: 1, s: 1.5}, {_id: 2, s: 3.0}, {_id: 3, s: 1.5}, {_id: 4, s: 2.0}]"),
                row("no field shows the score unless asked", "[{$match: {n: 1}}]",
                        "[{_id: 1, n: 1, tags: ['a', 'b']}, {_id: 3, n: 1}]"),
                row("$sort by it: highest first, ties in input order", "[{$sort: {x: {$meta: 'textScore'}}}, {$project: {_id: 1}}]",
                        "[{_id: 2}, {_id: 4}, {_id: 1}, {_id: 3}]"),
                row("$sort by it, then a field", "[{$sort: {s: {$meta: 'textScore'}, _id: -1}}, {$limit: 3}, {$project: {_id: 1}}]",
                        "[{_id: 2}, {_id: 4}, {_id: 3}]"),
                row("$sort by a field, then it", "[{$sort: {n: 1, s: {$meta: 'textScore'}}}, {$project: {_id: 1}}]",
                        "[{_id: 1}, {_id: 3}, {_id: 2}, {_id: 4}]"),
                row("kept through an inclusion $project", "[{$project: {n: 1}}, {$sort: {s: {$meta: 'textScore'}}}, {$limit: 1}]",
                        "[{_id: 2, n: 2}]"),
                row("kept through $replaceWith, $set and $unset",
                        "[{$replaceWith: {k: '$_id'}}, {$set: {x: 1}}, {$unset: 'x'}, {$addFields: {s: {$meta: 'textScore'}}}, {$limit: 2}]",
                        "[{k: 1, s: 1.5}, {k: 2, s: 3.0}]"),
                row("each document $unwind makes has its input's", "[{$unwind: '$tags'}, {$project: {tags: 1, s: {$meta: 'textScore'}}}]",
                        "[{_id: 1, tags: 'a', s: 1.5}, {_id: 1, tags: 'b', s: 1.5}]"),
                row("$group accumulates it", "[{$group: {_id: '$n', total: {$sum: {$meta: 'textScore'}}, best: {$max: {$meta: 'textScore'}}}},"
                        + " {$sort: {_id: 1}}]", "[{_id: 1, total: 3.0, best: 1.5}, {_id: 2, total: 5.0, best: 3.0}]"),
                row("in expressions", "[{$project: {_id: 1, high: {$gt: [{$meta: 'textScore'}, 1.5]}}}, {$limit: 2}]",
                        "[{_id: 1, high: false}, {_id: 2, high: true}]"),
                row("$facet's pipelines see it", "[{$facet: {top: [{$sort: {s: {$meta: 'textScore'}}}, {$limit: 1}, {$project: {_id: 1}}]}}]",
                        "[{top: [{_id: 2}]}]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("carried")
    void theScoreTravelsWithTheDocument(String rule, String stages, String expected) {
        List<JsonNode> all = new ArrayList<>();
        all.add(j(TEXT));
        j(stages).forEach(all::add);
        Pipeline pipeline = Pipeline.parseAggregation(A.MAPPER.valueToTree(all), QueryLimits.defaults());
        List<JsonNode> out = new ArrayList<>();
        Pipeline.Feed feed = pipeline.startAfter(1, new Pipeline.Options(1 << 20, A.NOW, Pipeline.Collections.NONE, () -> {}),
                out::add);
        JsonNode docs = j(DOCS);
        JsonNode scores = j(SCORES);
        for (int i = 0; i < docs.size(); i++) {
            feed.accept(Pipeline.scored(docs.get(i), scores.get(i).doubleValue()));
        }
        feed.finish();
        assertThat(A.MAPPER.valueToTree(out).toString()).isEqualTo(j(expected).toString());
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                row("$text in the second stage", "[{$match: {n: 1}}, " + TEXT + "]", TextSearch.NOT_FIRST_STAGE),
                row("$text in a second $match after a $sort", "[{$sort: {n: 1}}, " + TEXT + "]", TextSearch.NOT_FIRST_STAGE),
                row("$text in $facet", "[{$facet: {f: [" + TEXT + "]}}]", TextSearch.NOT_FIRST_STAGE),
                row("$text in $lookup's pipeline", "[{$lookup: {from: 'c', pipeline: [" + TEXT + "], as: 'j'}}]",
                        TextSearch.NOT_FIRST_STAGE),
                row("$text under $or", "[{$match: {$or: [{$text: {$search: 'w'}}, {n: 1}]}}]", "$text is not allowed in this context"),
                row("$meta without $text", "[{$project: {s: {$meta: 'textScore'}}}]", TextSearch.NO_SCORE),
                row("$sort by it without $text", "[{$match: {n: 1}}, {$sort: {s: {$meta: 'textScore'}}}]", TextSearch.NO_SCORE),
                row("$meta after $group", "[" + TEXT + ", {$group: {_id: '$n'}}, {$project: {s: {$meta: 'textScore'}}}]",
                        TextSearch.NO_SCORE),
                row("$sort by it after $bucket", "[" + TEXT + ", {$bucket: {groupBy: '$n', boundaries: [0, 5]}},"
                        + " {$sort: {s: {$meta: 'textScore'}}}]", TextSearch.NO_SCORE),
                row("$meta after $count", "[" + TEXT + ", {$count: 'c'}, {$set: {s: {$meta: 'textScore'}}}]", TextSearch.NO_SCORE),
                row("$meta in $lookup's pipeline (another collection's documents)", "[" + TEXT + ", {$lookup: {from: 'c',"
                        + " pipeline: [{$project: {s: {$meta: 'textScore'}}}], as: 'j'}}]", TextSearch.NO_SCORE),
                row("another $meta", "[" + TEXT + ", {$project: {s: {$meta: 'searchScore'}}}]", "unsupported $meta"),
                row("textScore twice in a $sort", "[" + TEXT + ", {$sort: {a: {$meta: 'textScore'}, b: {$meta: 'textScore'}}}]",
                        "$sort: textScore twice"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void mongoDbsRefusals(String rule, String stages, String message) {
        assertThatThrownBy(() -> Pipeline.parseAggregation(j(stages), QueryLimits.defaults()))
                .isInstanceOf(WeftException.class).hasMessageStartingWith(message)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(400));
    }

    @Test
    void aChangeStreamsStagesTakeNoText() {
        assertThatThrownBy(() -> Pipeline.parse(j("[" + TEXT + "]"), QueryLimits.defaults()))
                .hasMessage(TextSearch.NOT_FIRST_STAGE);
    }

    @Test
    void theStoreRunsTheTextMatchAndASortByScore() {
        Pipeline pipeline = Pipeline.parseAggregation(j("[{$match: {$text: {$search: 'w'}, $expr: {$gt: ['$n', 1]}}},"
                + " {$sort: {s: {$meta: 'textScore'}}}, {$limit: 5}]"), QueryLimits.defaults());
        // the $expr follows the $text match as a stage of its own, which stops the prefix before the $sort
        assertThat(pipeline.prefix().matches()).isEqualTo(1);
        assertThat(pipeline.prefix().filters().toString()).isEqualTo("[{\"$text\":{\"$search\":\"w\"}}]");
        Pipeline sorted = Pipeline.parseAggregation(j("[" + TEXT + ", {$sort: {s: {$meta: 'textScore'}, n: 1}}, {$limit: 5}]"),
                QueryLimits.defaults());
        assertThat(sorted.prefix().sort().orElseThrow().fields()).extracting(f -> f.path() + ":" + f.direction())
                .containsExactly(Sort.TEXT_SCORE + ":-1", "n:1");
        assertThat(sorted.prefix().limit()).isEqualTo(5);
        assertThat(sorted.usesTextScore()).isTrue();
        assertThat(sorted.readPaths()).containsExactly("n");
    }
}
