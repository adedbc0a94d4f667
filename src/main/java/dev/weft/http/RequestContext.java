package dev.weft.http;

import dev.weft.security.Permission;
import dev.weft.security.Principal;

/**
 * What the parse, authenticate and authorize stages decided about one request: its route, who
 * sent it and what the access rules grant. Built once per request, after authorization, and
 * immutable; an {@link Exchange} has none until then, so an endpoint can never run with a
 * permission nobody granted (deny by default, see {@link Exchange#permission()}).
 */
record RequestContext(Routes.Match match, Principal principal, Permission permission) {}
