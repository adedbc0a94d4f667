package dev.weft.http;

import dev.weft.core.Durability;
import dev.weft.core.WeftException;
import dev.weft.security.Permission;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.WriteResult;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A single-document write under the request's {@link Permission}. When the permission restricts
 * writes, the stored document is read and checked first ({@link Permission#admitStored}), and the
 * write is sent with that document's etag as {@code If-Match}, so the check still holds when the
 * write commits: a concurrent change makes the write fail with 412 and the whole check is run
 * again (a few times, then 409). A document absent at the check is written in insert mode, so an
 * insert racing in is never overwritten unchecked; in update mode it is simply 404.
 *
 * <p>Without restrictions this is exactly one store write, with the client's {@code If-Match}.
 */
final class GuardedWrite {
    static final int ATTEMPTS = 5;

    /** Builds the op from the checked stored document (empty when absent), the mode and the If-Match to use. */
    @FunctionalInterface
    interface Plan {
        WriteOp op(Optional<ObjectNode> stored, WriteMode mode, Optional<String> ifMatch);
    }

    private GuardedWrite() {}

    static WriteResult write(Api api, Exchange ex, Namespace ns, JsonNode id, WriteMode mode, Plan plan) {
        Permission permission = ex.permission();
        Optional<String> clientIfMatch = Api.ifMatch(ex);
        Durability durability = api.durability(ex, ns);
        if (!permission.restrictsWrites() || mode == WriteMode.INSERT) {
            return api.store().write(plan.op(Optional.empty(), mode, clientIfMatch), durability);
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Optional<StoredDocument> current = api.store().get(ns, id);
            if (current.isEmpty()) {
                if (mode == WriteMode.UPDATE) {
                    return WriteResult.failed(Outcome.NOT_FOUND, "no document with _id " + api.json().text(id));
                }
                WriteResult result = api.store().write(plan.op(Optional.empty(), WriteMode.INSERT, clientIfMatch), durability);
                if (result.outcome() == Outcome.CONFLICT && clientIfMatch.isEmpty()) {
                    continue; // inserted meanwhile: check the document that is there now
                }
                return result;
            }
            ObjectNode stored = api.json().parseObject(current.get().json(), "stored document");
            permission.admitStored(stored);
            Optional<String> ifMatch = clientIfMatch.or(() -> Etags.of(current.get().json()));
            WriteResult result = api.store().write(plan.op(Optional.of(stored), mode, ifMatch), durability);
            if (result.outcome() == Outcome.PRECONDITION_FAILED && clientIfMatch.isEmpty()) {
                continue; // changed meanwhile: check again
            }
            return result;
        }
        throw WeftException.conflict("the document kept changing while its access was checked; retry");
    }
}
