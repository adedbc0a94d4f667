package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * A write's documents enter a trigram index in one statement per table (their texts as a JSON
 * array): every character survives the trip, and each document is found by its own literal.
 */
class Fts5TrigramsWriteTest {
    /** Strings with what JSON escapes or SQLite could misread: quotes, backslashes, controls, line feeds, astral characters. */
    private static final List<String> ODD = List.of("quo\"te", "back\\slash", "line\nfeed", "tab\there", "ctl\u0001x",
            "é accent", "中文字符", "emoji 😀 face", "per%cent_under", "'single'", "[1,2]", "{\"k\":1}");

    @TempDir
    Path dir;

    @Test
    void aWritesDocumentsGoInWholeEveryCharacterKept() throws Exception {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("tri", "c");
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("tri", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            store.createIndex(ns, IndexSpec.trigram("u_tri", "u"));
            List<ObjectNode> docs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                ObjectNode doc = Json.NODES.objectNode().put("_id", i);
                doc.putArray("u").add("https://host" + i + ".example/" + ODD.get(i % ODD.size()) + "/z" + i + "z").add("x");
                docs.add(doc);
            }
            assertThat(store.write(new WriteOp.InsertMany(ns, docs)).ok()).isTrue();
            for (int i = 0; i < 1000; i += 37) {
                String literal = "host" + i + ".example/" + ODD.get(i % ODD.size()) + "/z" + i + "z";
                assertThat(ids(store, ns, java.util.regex.Pattern.quote(literal))).as(literal).containsExactly(String.valueOf(i));
            }
            assertThat(ids(store, ns, "😀 face/z7z")).containsExactly("7");
            assertThat(ids(store, ns, "HOST99\\.EXAMPLE")).isEmpty();
        }
    }

    /** Hinted, so the trigram index answers. */
    private static List<String> ids(SqliteStore store, Namespace ns, String regex) {
        List<String> out = new ArrayList<>();
        ObjectNode spec = Json.NODES.objectNode();
        spec.putObject("u").put("$regex", regex);
        Filter f = Filter.parse(spec, LIMITS);
        store.find(ns, new FindQuery(f, null, 0, 100, Optional.of("u_tri")), d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }
}
