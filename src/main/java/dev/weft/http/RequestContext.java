package dev.weft.http;

import dev.weft.security.DocumentAccess;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import dev.weft.store.Namespace;

/**
 * What the parse, authenticate and authorize stages decided about one request: its route, who
 * sent it, what the access rules grant and which document policy each collection has. Built once
 * per request, after authorization, and immutable; an {@link Exchange} has none until then, so an
 * endpoint can never run with a permission nobody granted (deny by default, see
 * {@link Exchange#permission()}). Documents are read and written only under
 * {@link #access(Namespace)}, the permission and the collection's policy together.
 */
record RequestContext(Routes.Match match, Principal principal, Permission permission, DocumentPolicy.Lookup policies) {

    /** What this request may do with the documents of {@code ns}. */
    DocumentAccess access(Namespace ns) {
        return DocumentAccess.of(permission, policies.of(ns));
    }

    /** What {@code other}, granted for another request of the same principal ($lookup's read of a collection), allows on {@code ns}. */
    DocumentAccess access(Namespace ns, Permission other) {
        return DocumentAccess.of(other, policies.of(ns));
    }
}
