package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every document a PATCH or bulk PATCH leaves behind must pass, checked inside the write
 * (so nothing is stored when any document fails, and no concurrent change slips between check
 * and write): the request's permission ({@link Permission#admitUpdated}: protected paths,
 * {@code writeFilter}) and the collection's policy ({@link DocumentPolicy#updated}). The store
 * reports a refusal as an invalid op; the refusal itself is kept, so the endpoint answers with its
 * own status (403, or 401 for an anonymous request).
 */
final class UpdateCheck implements WriteOp.ResultCheck {
    private final Permission permission;
    private final DocumentPolicy policy;
    private volatile WeftException refusal;

    private UpdateCheck(Permission permission, DocumentPolicy policy) {
        this.permission = permission;
        this.policy = policy;
    }

    static UpdateCheck of(Api api, Exchange ex, Namespace ns) {
        return new UpdateCheck(ex.permission(), api.policy(ns));
    }

    /** The check to put on the op: none when neither the permission nor the policy restricts updates. */
    WriteOp.ResultCheck forOp() {
        return permission.restrictsWrites() || policy.checksUpdates() ? this : WriteOp.ResultCheck.NONE;
    }

    @Override
    public void admit(ObjectNode before, ObjectNode after) {
        try {
            permission.admitUpdated(before, after);
            policy.updated(after);
        } catch (WeftException e) {
            refusal = e;
            throw e;
        }
    }

    /** {@code result}, or the refusal that failed it. */
    WriteResult answer(WriteResult result) {
        WeftException refused = refusal;
        if (!result.ok() && refused != null) {
            throw refused;
        }
        return result;
    }
}
