package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.obj;
import static dev.weft.store.sqlite.StoreTesting.ids;
import static dev.weft.store.sqlite.StoreTesting.query;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An insert into a collection with a text index is analyzed when it is made ready, on the
 * caller's thread, so the single writer only stores postings; terms analyzed for an index that
 * was replaced before the write are not used (the writer analyzes for the index it finds).
 */
class TextTermsPreparedTest {
    private static final TextIndex TITLE = new TextIndex(Map.of("title", 1), TextLanguage.ENGLISH, "language");
    private static final TextIndex BODY = new TextIndex(Map.of("body", 1), TextLanguage.ENGLISH, "language");

    @TempDir
    Path dir;

    @Test
    void anInsertCarriesItsTermsAnalyzedBeforeTheWrite() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            Namespace ns = collection(store);
            store.createIndex(ns, IndexSpec.text("t", TITLE));
            WriteOp prepared = store.prepare(new WriteOp.InsertMany(ns, List.of(
                    obj("{\"_id\":1,\"title\":\"Running shops\"}"), obj("{\"_id\":2,\"title\":\"cold tea\"}"))));
            assertThat(prepared).isInstanceOf(WriteOp.EncodedInsert.class);
            WriteOp.EncodedInsert insert = (WriteOp.EncodedInsert) prepared;
            assertThat(insert.textTerms()).containsOnlyKeys(TITLE);
            assertThat(insert.textTerms().get(TITLE)).containsExactly(
                    TITLE.termsByWeight(insert.documents().get(0)), TITLE.termsByWeight(insert.documents().get(1)));
            assertThat(store.write(prepared).ok()).isTrue();
            assertThat(ids(store, ns, query("{\"$text\":{\"$search\":\"run\"}}", null, 0, 10))).containsExactly("1");
        }
    }

    /** An ndjson chunk is made ready by its request and again by the store's write: its documents are analyzed once. */
    @Test
    void anInsertMadeReadyTwiceIsAnalyzedOnce() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            Namespace ns = collection(store);
            store.createIndex(ns, IndexSpec.text("t", TITLE));
            WriteOp prepared = store.prepare(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1,\"title\":\"Running shops\"}"))));
            assertThat(store.prepare(prepared)).isSameAs(prepared);
            assertThat(store.write(prepared).ok()).isTrue();
            assertThat(ids(store, ns, query("{\"$text\":{\"$search\":\"run\"}}", null, 0, 10))).containsExactly("1");
            store.dropIndex(ns, "t");
            store.createIndex(ns, IndexSpec.text("b", BODY)); // a text index the first analysis did not know: analyzed for it
            WriteOp.EncodedInsert again = (WriteOp.EncodedInsert) store.prepare(store.prepare(new WriteOp.InsertMany(ns,
                    List.of(obj("{\"_id\":2,\"body\":\"brewed coffee\"}")))));
            WriteOp.EncodedInsert twice = (WriteOp.EncodedInsert) store.prepare(prepared);
            assertThat(twice.textTerms()).containsOnlyKeys(TITLE, BODY);
            assertThat(twice.textTerms().get(TITLE)).isSameAs(((WriteOp.EncodedInsert) prepared).textTerms().get(TITLE));
            assertThat(store.write(again).ok()).isTrue();
            assertThat(ids(store, ns, query("{\"$text\":{\"$search\":\"brew\"}}", null, 0, 10))).containsExactly("2");
        }
    }

    @Test
    void termsAnalyzedForAReplacedIndexAreAnalyzedAgainByTheWriter() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            Namespace ns = collection(store);
            store.createIndex(ns, IndexSpec.text("t", TITLE));
            WriteOp prepared = store.prepare(new WriteOp.InsertMany(ns, List.of(
                    obj("{\"_id\":1,\"title\":\"shop\",\"body\":\"brewed coffee\"}"))));
            store.dropIndex(ns, "t");
            store.createIndex(ns, IndexSpec.text("b", BODY));
            assertThat(store.write(prepared).ok()).isTrue();
            assertThat(ids(store, ns, query("{\"$text\":{\"$search\":\"brew\"}}", null, 0, 10))).containsExactly("1");
            assertThat(ids(store, ns, query("{\"$text\":{\"$search\":\"shop\"}}", null, 0, 10))).isEmpty();
        }
    }

    @Test
    void anInsertWithoutATextIndexCarriesNoTerms() {
        try (SqliteStore store = StoreTesting.open(dir)) {
            Namespace ns = collection(store);
            WriteOp prepared = store.prepare(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1,\"title\":\"shop\"}"))));
            assertThat(((WriteOp.EncodedInsert) prepared).textTerms()).isEmpty();
        }
    }

    private static Namespace collection(SqliteStore store) {
        Namespace ns = new Namespace("txt", "c");
        store.putDatabase("txt", obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        return ns;
    }
}
