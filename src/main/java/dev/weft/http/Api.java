package dev.weft.http;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.pages.DeepPages;
import dev.weft.store.txn.Sessions;
import dev.weft.store.WriteResult;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every endpoint shares: the store, the JSON codec, the limits, the result cache, the
 * document policy of each collection (which reaches endpoints only inside a request's
 * {@link dev.weft.security.DocumentAccess}, see {@link RequestContext#access}), and the small translations between HTTP and the store (names from the path, content types,
 * etags, read modes and durability, write outcomes to statuses).
 */
record Api(Store store, Json json, Settings settings, QueryLimits limits, ResultCache cache, DocumentPolicy.Lookup policies,
           CursorTokens cursors, DeepPages pages, Sessions sessions, ReadMemo memo) {
    static final String READ_MODE = "readMode";
    static final String DURABILITY = "durability";
    /** The store of a request inside a transaction ({@link SessionEndpoints#handle}): the transaction's view. */
    static final ScopedValue<Store> IN_TRANSACTION = ScopedValue.newInstance();
    /** Caches nothing: a transaction's reads are its own, and hold what nobody else may see yet. */
    private static final ResultCache NO_CACHE = new ResultCache(0, 0);

    static Api of(Store store, Settings settings, DocumentPolicy.Lookup policies) {
        Json json = new Json(settings.maxNestingDepth());
        return new Api(store, json, settings,
                QueryLimits.of(settings),
                new ResultCache(settings.resultCacheEntries(), settings.resultCacheMaxBytes()), policies,
                new CursorTokens(settings.cursorSecret()), DeepPages.of(store, settings), new Sessions(store, settings),
                new ReadMemo(json));
    }

    /** The store this request reads and writes: inside a transaction, the transaction's. */
    @Override
    public Store store() {
        return IN_TRANSACTION.isBound() ? IN_TRANSACTION.get() : store;
    }

    /** The result cache, which a request inside a transaction neither reads nor fills. */
    @Override
    public ResultCache cache() {
        return IN_TRANSACTION.isBound() ? NO_CACHE : cache;
    }

    /** Whether this request runs inside a transaction. */
    static boolean inTransaction() {
        return IN_TRANSACTION.isBound();
    }

    Namespace namespace(Exchange ex) {
        return new Namespace(ex.pathParam("db"), ex.pathParam("coll"));
    }

    String database(Exchange ex) {
        String db = ex.pathParam("db");
        Namespace.checkName(db, "database");
        return db;
    }

    /** The collection's metadata, or 404 naming what is missing. */
    Metadata existingCollection(Namespace ns) {
        return store.collection(ns).orElseThrow(() -> store.database(ns.db()).isEmpty()
                ? WeftException.notFound("database " + ns.db() + " does not exist")
                : WeftException.notFound("collection " + ns + " does not exist"));
    }

    /**
     * Where a read may be served from: the request's {@code readMode} parameter, else the
     * collection's {@code readMode} property, else the {@code read-mode} setting. Unknown values
     * are 400s.
     */
    ReadMode readMode(Exchange ex, Namespace ns) {
        return mode(ex, ns, READ_MODE).map(v -> ReadMode.parse(v, READ_MODE)).orElse(settings.readMode());
    }

    /** When a write is acknowledged: {@code durability} parameter, collection property, setting. */
    Durability durability(Exchange ex, Namespace ns) {
        return mode(ex, ns, DURABILITY).map(v -> Durability.parse(v, DURABILITY)).orElse(settings.durability());
    }

    private Optional<String> mode(Exchange ex, Namespace ns, String name) {
        Optional<String> asked = ex.param(name);
        if (asked.isPresent()) {
            return asked;
        }
        Optional<ReadMemo.Facts> facts = memo.collection(store, ns); // the committed catalog, as before a transaction too
        return facts.flatMap(name.equals(READ_MODE) ? ReadMemo.Facts::readMode : ReadMemo.Facts::durability);
    }

    /**
     * 404 naming what is missing, unless the collection exists; for reads that need no more of
     * its metadata ({@link #existingCollection} parses its properties).
     */
    void requireCollection(Namespace ns) {
        if (memo.collection(store, ns).isPresent()) {
            return;
        }
        existingCollection(ns);
    }

    /** Collection properties naming a read mode or durability must name known ones (400 otherwise). */
    static void checkModes(ObjectNode properties) {
        JsonNode readMode = properties.get(READ_MODE);
        if (readMode != null) {
            ReadMode.parse(readMode.isString() ? readMode.asString() : readMode.toString(), "property " + READ_MODE);
        }
        JsonNode durability = properties.get(DURABILITY);
        if (durability != null) {
            Durability.parse(durability.isString() ? durability.asString() : durability.toString(), "property " + DURABILITY);
        }
    }

    /**
     * A JSON body, required to be JSON (415 otherwise), or on POST and PATCH a form read as one
     * ({@link FormBody}); empty bodies read as {@code {}}.
     */
    JsonNode jsonBody(Exchange ex) {
        if (FormBody.isForm(ex.contentType()) && takesForms(ex)) {
            return FormBody.read(ex, ReadParams.relaxed(this));
        }
        requireJson(ex);
        byte[] body = ex.body();
        if (isBlank(body)) {
            return Json.NODES.objectNode();
        }
        return json.parse(body, "request body");
    }

    ObjectNode objectBody(Exchange ex) {
        JsonNode body = jsonBody(ex);
        if (!body.isObject()) {
            throw WeftException.badRequest("request body must be a JSON object");
        }
        return (ObjectNode) body;
    }

    /** RESTHeart takes form bodies for the writes that send a document: POST and PATCH. */
    static boolean takesForms(Exchange ex) {
        return ex.method().equals("POST") || ex.method().equals("PATCH");
    }

    static void requireJson(Exchange ex) {
        String type = ex.contentType();
        if (!type.isEmpty() && !type.equals("application/json") && !type.equals("application/hal+json")) {
            throw new WeftException(415, "Content-Type must be application/json"
                    + (ex.method().equals("POST") ? " or application/x-ndjson" : "") + ", not " + type);
        }
    }

    private static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return true;
    }

    static Optional<String> ifMatch(Exchange ex) {
        return ex.header("If-Match").map(Api::stripEtagQuotes);
    }

    static String stripEtagQuotes(String etag) {
        String e = etag.trim();
        if (e.startsWith("W/")) {
            e = e.substring(2);
        }
        if (e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")) {
            e = e.substring(1, e.length() - 1);
        }
        return e;
    }

    /** RESTHeart requires the etag to delete a database or collection (409 without it). */
    static Optional<String> requiredIfMatch(Exchange ex, String what) {
        Optional<String> etag = ifMatch(ex);
        if (etag.isEmpty()) {
            throw WeftException.conflict("the " + what + "'s ETag must be provided using the 'If-Match' header");
        }
        return etag;
    }

    /** Answers a single-document write the RESTHeart way; failures become their 4xx. */
    static void answerWrite(Exchange ex, WriteResult result, Optional<String> location) {
        result.etag().ifPresent(etag -> ex.setHeader("ETag", etag));
        switch (result.outcome()) {
            case CREATED -> {
                location.ifPresent(l -> ex.setHeader("Location", l));
                ex.sendEmpty(201);
            }
            case UPDATED -> ex.sendEmpty(200);
            case DELETED -> ex.sendEmpty(204);
            case BULK_DONE -> ex.sendEmpty(200);
            case NOT_FOUND, CONFLICT, INVALID, UNAVAILABLE, PRECONDITION_FAILED -> throw failure(result);
        }
    }

    /** The client error a failed write result stands for. */
    static WeftException failure(WriteResult result) {
        return switch (result.outcome()) {
            case NOT_FOUND -> WeftException.notFound(result.message().orElse("document not found"));
            case CONFLICT -> WeftException.conflict(result.message().orElse("duplicate key"));
            case PRECONDITION_FAILED -> WeftException.preconditionFailed(
                    result.message().orElse("the ETag does not match (If-Match)"));
            case UNAVAILABLE -> new WeftException(503, result.message().orElse("the write could not run"));
            default -> WeftException.badRequest(result.message().orElse("invalid write"));
        };
    }
}
