package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.store.WriteOp.WriteMode;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * RESTHeart's {@code ?wm=insert|update|upsert}; each method has its own default. As in RESTHeart,
 * a request that gives {@code wm} at all needs a rule with {@code allowWriteMode}.
 */
final class WriteModes {
    private WriteModes() {}

    static WriteMode parse(Exchange ex, WriteMode fallback) {
        ex.param("wm").ifPresent(wm -> ex.permission().admitWriteMode());
        return ex.param("wm").map(wm -> switch (wm.toLowerCase()) {
            case "insert" -> WriteMode.INSERT;
            case "update" -> WriteMode.UPDATE;
            case "upsert" -> WriteMode.UPSERT;
            default -> throw WeftException.badRequest("wm must be insert, update or upsert, not " + wm);
        }).orElse(fallback);
    }

    /**
     * A POSTed document that may only update needs the {@code _id} of the one it updates: without
     * it there is nothing to update (400, as RESTHeart answers), not a document generated to be missed.
     */
    static void requireIdToUpdate(JsonNode body, WriteMode mode) {
        if (mode != WriteMode.UPDATE) {
            return;
        }
        for (JsonNode doc : body.isArray() ? body : List.of(body)) {
            if (doc.isObject() && !doc.has("_id")) {
                throw WeftException.badRequest("wm=update needs the _id of the document to update");
            }
        }
    }
}
