package dev.weft.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.QueryLimits;
import dev.weft.store.Namespace;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** What a stream's filter reads of the documents, which the access check compares with projectResponse. */
class StreamQueryTest {
    private static final Namespace NS = new Namespace("db", "c");
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private static ObjectNode json(String s) {
        return (ObjectNode) JSON.parse(s, "test");
    }

    @Test
    void anAdHocFiltersPathsAreDocumentPaths() {
        StreamQuery q = StreamQuery.adhoc(NS, List.of(JSON.parse("{\"a.b\":1,\"$or\":[{\"c\":2},{\"d\":{\"$gt\":3}}]}", "filter")),
                LIMITS);
        assertThat(q.documentPaths()).isEqualTo(Map.of("a.b", "a.b", "c", "c", "d", "d"));
    }

    @Test
    void aNamedStreamsEventPathsMapToTheDocumentPathsTheyReveal() {
        ObjectNode props = json("""
                {"streams":[{"uri":"s","stages":[{"$match":{"operationType":"update","ns.coll":"c",
                  "fullDocument.x.y":1,"updateDescription.updatedFields.z":{"$exists":true},
                  "updateDescription.removedFields":"w","documentKey._id":"k","fullDocument":{"$exists":true}}}]}]}""");
        StreamQuery q = StreamQuery.named(NS, props, "s", Optional.empty(), LIMITS);
        assertThat(q.documentPaths()).isEqualTo(Map.of(
                "fullDocument.x.y", "x.y",
                "updateDescription.updatedFields.z", "z",
                "updateDescription.removedFields", "",
                "documentKey._id", "_id",
                "fullDocument", ""));
    }
}
