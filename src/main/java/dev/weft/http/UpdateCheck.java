package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.DocumentAccess;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every document a PATCH or bulk PATCH leaves behind must pass, checked inside the write
 * (so nothing is stored when any document fails, and no concurrent change slips between check
 * and write): the request's {@link DocumentAccess#admitUpdated} (protected paths,
 * {@code writeFilter}, then the collection's policy). The store
 * reports a refusal as an invalid op; the refusal itself is kept, so the endpoint answers with its
 * own status (403, or 401 for an anonymous request).
 */
final class UpdateCheck implements WriteOp.ResultCheck {
    private final DocumentAccess access;
    private volatile WeftException refusal;

    private UpdateCheck(DocumentAccess access) {
        this.access = access;
    }

    static UpdateCheck of(DocumentAccess access) {
        return new UpdateCheck(access);
    }

    /** The check to put on the op: none when neither the permission nor the policy restricts updates. */
    WriteOp.ResultCheck forOp() {
        return access.checksUpdates() ? this : WriteOp.ResultCheck.NONE;
    }

    @Override
    public void admit(ObjectNode before, ObjectNode after) {
        try {
            access.admitUpdated(before, after);
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
