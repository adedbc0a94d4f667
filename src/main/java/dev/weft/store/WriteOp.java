package dev.weft.store;

import dev.weft.query.Filter;
import dev.weft.query.Update;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One write to a collection. A store runs a {@link Store#writeAll} batch in one transaction
 * (SQLite: its single writer's group commit; PostgreSQL: one transaction among concurrent
 * others); each op succeeds or fails alone (a savepoint each, so a failed op leaves no trace),
 * and {@link InsertMany} is all-or-nothing within its op. {@code ifMatch} is the etag the client
 * requires (412 otherwise).
 */
public sealed interface WriteOp {
    Namespace ns();

    /** Insert documents that carry their {@code _id}; a duplicate fails the whole op (409). */
    record InsertMany(Namespace ns, java.util.List<ObjectNode> documents) implements WriteOp {}

    /**
     * An {@link InsertMany} made ready on the caller's thread ({@link Store#prepare}):
     * every document stamped with its {@code _id} and a new {@code _etag}, and encoded, so that the
     * transaction (for SQLite, its single writer) only stores them. All-or-nothing like InsertMany; {@code etag} is the last
     * document's.
     */
    record EncodedInsert(Namespace ns, java.util.List<ObjectNode> documents, java.util.List<byte[]> bodies, String etag,
                         java.util.Map<dev.weft.query.TextIndex, java.util.List<java.util.List<String>>> textTerms,
                         java.util.Map<String, java.util.List<dev.weft.query.Trigrams.Indexed>> trigramTexts)
            implements WriteOp {
        public EncodedInsert(Namespace ns, java.util.List<ObjectNode> documents, java.util.List<byte[]> bodies, String etag) {
            this(ns, documents, bodies, etag, java.util.Map.of(), java.util.Map.of());
        }

        /**
         * The same insert with each document's terms for {@code textTerms}' indexes
         * ({@link dev.weft.query.TextIndex#termsByWeight}, aligned with {@code documents}),
         * analyzed on the caller's thread so that the single writer only stores postings.
         */
        public EncodedInsert withTextTerms(java.util.Map<dev.weft.query.TextIndex, java.util.List<java.util.List<String>>> terms) {
            return new EncodedInsert(ns, documents, bodies, etag, terms, trigramTexts);
        }

        /**
         * The same insert with each document's {@link dev.weft.query.Trigrams#indexed} text for
         * each trigram index's path ({@code texts}' keys; aligned with {@code documents}), cut on
         * the caller's thread for the same reason as {@link #withTextTerms}.
         */
        public EncodedInsert withTrigramTexts(java.util.Map<String, java.util.List<dev.weft.query.Trigrams.Indexed>> texts) {
            return new EncodedInsert(ns, documents, bodies, etag, textTerms, texts);
        }
    }

    /**
     * Replace a whole document ({@code document} has the {@code _id}). {@code upsert} inserts
     * a missing one; {@code mustExist} false with {@code upsert} false means insert only.
     */
    record Replace(Namespace ns, ObjectNode document, WriteMode mode, Optional<String> ifMatch) implements WriteOp {}

    /**
     * A check of what an update leaves behind, run inside the write for each document it changes
     * ({@code before} null when the update creates it): it throws a
     * {@link dev.weft.core.WeftException} to refuse, which fails the whole op and changes nothing.
     */
    @FunctionalInterface
    interface ResultCheck {
        ResultCheck NONE = (before, after) -> {};

        void admit(ObjectNode before, ObjectNode after);
    }

    /** Apply update operators to the document with {@code id}. */
    record UpdateOne(Namespace ns, JsonNode id, Update update, WriteMode mode, Optional<String> ifMatch, ResultCheck check)
            implements WriteOp {
        public UpdateOne(Namespace ns, JsonNode id, Update update, WriteMode mode, Optional<String> ifMatch) {
            this(ns, id, update, mode, ifMatch, ResultCheck.NONE);
        }
    }

    record DeleteOne(Namespace ns, JsonNode id, Optional<String> ifMatch) implements WriteOp {}

    /** Bulk PATCH on {@code /db/coll/*?filter=}: all or nothing when {@code check} refuses a document. */
    record UpdateMany(Namespace ns, Filter filter, Update update, ResultCheck check) implements WriteOp {
        public UpdateMany(Namespace ns, Filter filter, Update update) {
            this(ns, filter, update, ResultCheck.NONE);
        }
    }

    /** Bulk DELETE on {@code /db/coll/*?filter=}. */
    record DeleteMany(Namespace ns, Filter filter) implements WriteOp {}

    /** RESTHeart's {@code wm}: insert only, update only (404 when missing), or upsert. */
    enum WriteMode { INSERT, UPDATE, UPSERT }
}
