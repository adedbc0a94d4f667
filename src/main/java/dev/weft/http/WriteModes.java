package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.store.WriteOp.WriteMode;

/** RESTHeart's {@code ?wm=insert|update|upsert}; each method has its own default. */
final class WriteModes {
    private WriteModes() {}

    static WriteMode parse(Exchange ex, WriteMode fallback) {
        return ex.param("wm").map(wm -> switch (wm.toLowerCase()) {
            case "insert" -> WriteMode.INSERT;
            case "update" -> WriteMode.UPDATE;
            case "upsert" -> WriteMode.UPSERT;
            default -> throw WeftException.badRequest("wm must be insert, update or upsert, not " + wm);
        }).orElse(fallback);
    }
}
