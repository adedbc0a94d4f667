package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.store.WriteOp.WriteMode;

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
}
