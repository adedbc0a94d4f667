package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One compiled access rule of {@code /weft/acl}. The document's fields may sit at the top level
 * or, as in RESTHeart, under {@code mongo}. Everything is parsed and compiled when the rules load;
 * per request only variables are substituted ({@link Template}), and a rule without variables
 * hands out one permission built at load time.
 *
 * <p>A rule that cannot be compiled (one stored below the API, or before its checks) is kept as a
 * {@linkplain #broken broken} rule that matches every request of its roles at its priority (the
 * highest precedence when the priority itself is unreadable) and denies it: a typo in a narrowing
 * rule must not let a broader rule of lower priority take over. Compiling never throws.
 */
record Rule(String id, Set<String> roles, int priority, RequestPredicate predicate, Optional<Template> readFilter,
            Optional<Template> writeFilter, Optional<Projection> projection, String projectionKey,
            List<String> protectedFields, Optional<Template> merge, Permission.Allowances allows, Optional<String> broken,
            Optional<Permission> fixed, Optional<Permission> fixedAnonymous) {

    static final int DEFAULT_PRIORITY = 100;

    boolean appliesTo(Principal principal) {
        for (String role : principal.roles()) {
            if (roles.contains(role)) {
                return true;
            }
        }
        return false;
    }

    /** The permission this rule grants {@code principal}; throws 400 for a filter that no longer compiles. */
    Permission permission(Principal principal, long nowMillis, QueryLimits limits, Json json) {
        boolean anonymous = principal.name().isEmpty();
        if (broken.isPresent()) {
            throw Permission.denied(anonymous, "access rule " + id + " is invalid, so it denies: " + broken.get());
        }
        Optional<Permission> prebuilt = anonymous ? fixedAnonymous : fixed;
        if (prebuilt.isPresent()) {
            return prebuilt.get();
        }
        return build(principal, anonymous, nowMillis, limits, json);
    }

    private Permission build(Principal principal, boolean anonymous, long nowMillis, QueryLimits limits, Json json) {
        Optional<JsonNode> read = readFilter.map(t -> t.resolve(principal, nowMillis));
        Optional<Filter> readCompiled = read.map(r -> Filter.parse(r, limits));
        Optional<Filter> write = writeFilter.map(t -> Filter.parse(t.resolve(principal, nowMillis), limits));
        Optional<ObjectNode> merged = merge.map(t -> (ObjectNode) t.resolve(principal, nowMillis));
        String key = read.map(json::text).orElse("") + "\u0002" + projectionKey;
        return new Permission(anonymous, readCompiled, write, projection, protectedFields, merged, allows, key);
    }

    /** The compiled rule, or a broken one saying why it does not compile; never throws. */
    static Rule compile(JsonNode doc, QueryLimits limits, Json json) {
        JsonNode rawId = doc.path("_id");
        String id = rawId.isString() ? rawId.asString() : rawId.isMissingNode() ? "?" : json.text(rawId);
        try {
            Set<String> roles = RuleFormat.roles(doc.get("roles"));
            int priority = RuleFormat.priority(doc.get("priority"), DEFAULT_PRIORITY);
            return compile(id, roles, priority, doc, limits, json);
        } catch (RuntimeException e) {
            int priority;
            try {
                priority = RuleFormat.priority(doc.get("priority"), DEFAULT_PRIORITY);
            } catch (WeftException unreadable) {
                priority = Integer.MIN_VALUE;
            }
            String why = e instanceof WeftException ? e.getMessage() : "cannot be read (" + e.getMessage() + ")";
            return broken(id, RuleFormat.readableRoles(doc.get("roles")), priority, why);
        }
    }

    static Rule broken(String id, Set<String> roles, int priority, String why) {
        return new Rule(id, roles, priority, new RequestPredicate.Constant(true), Optional.empty(), Optional.empty(),
                Optional.empty(), "", List.of(), Optional.empty(), Permission.Allowances.NONE, Optional.of(why),
                Optional.empty(), Optional.empty());
    }

    private static Rule compile(String id, Set<String> roles, int priority, JsonNode doc, QueryLimits limits, Json json) {
        JsonNode restrictions = RuleFormat.restrictions(doc);
        if (!doc.path("predicate").isString()) {
            throw WeftException.badRequest("predicate must be a string such as \"path-prefix('/db/coll') and method(GET)\"");
        }
        RequestPredicate predicate = RequestPredicate.parse(doc.get("predicate").asString());
        Optional<Template> read = filterTemplate(restrictions, "readFilter", limits);
        Optional<Template> write = filterTemplate(restrictions, "writeFilter", limits);
        Optional<JsonNode> project = RuleFormat.object(restrictions, "projectResponse", "{\"secret\":0}");
        Optional<Projection> projection = project.map(Projection::parse);
        String projectionKey = project.map(json::text).orElse("");
        List<String> protectedFields = RuleFormat.protectedPaths(restrictions);
        Optional<Template> merge = RuleFormat.object(restrictions, "mergeRequest", "{\"owner\":\"@user._id\"}")
                .map(m -> Template.of(m, "mergeRequest"));
        Permission.Allowances allows = new Permission.Allowances(
                RuleFormat.flag(restrictions, RuleFormat.MANAGEMENT), RuleFormat.flag(restrictions, RuleFormat.BULK_PATCH),
                RuleFormat.flag(restrictions, RuleFormat.BULK_DELETE), RuleFormat.flag(restrictions, RuleFormat.WRITE_MODE));
        boolean constant = read.map(Template::constant).orElse(true) && write.map(Template::constant).orElse(true)
                && merge.map(Template::constant).orElse(true);
        Rule rule = new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                protectedFields, merge, allows, Optional.empty(), Optional.empty(), Optional.empty());
        if (!constant) {
            return rule;
        }
        // No variables: build the two permissions (anonymous or not) once.
        Principal nobody = new Principal("", Set.of());
        Permission anonymous = rule.build(nobody, true, 0, limits, json);
        Permission named = rule.build(nobody, false, 0, limits, json);
        return new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                protectedFields, merge, allows, Optional.empty(), Optional.of(named), Optional.of(anonymous));
    }

    /** A filter template, test-compiled once with placeholder values so a bad filter fails at load time. */
    private static Optional<Template> filterTemplate(JsonNode restrictions, String name, QueryLimits limits) {
        Optional<JsonNode> spec = RuleFormat.object(restrictions, name, "{\"owner\":\"@user._id\"}");
        if (spec.isEmpty()) {
            return Optional.empty();
        }
        Template template = Template.of(spec.get(), name);
        Filter.parse(template.resolve(new Principal("x", Set.of("x")), 0), limits);
        return Optional.of(template);
    }
}
