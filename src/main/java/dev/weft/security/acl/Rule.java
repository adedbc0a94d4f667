package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
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
 * <p>A rule that cannot be compiled is kept as a {@linkplain #broken broken} rule that matches
 * every request of its roles at its priority and denies it: a typo in a narrowing rule must not
 * let a broader rule of lower priority take over.
 */
record Rule(String id, Set<String> roles, int priority, RequestPredicate predicate, Optional<Template> readFilter,
            Optional<Template> writeFilter, Optional<Projection> projection, String projectionKey,
            List<String> protectedFields, Optional<Template> merge, boolean management, Optional<String> broken,
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
        return new Permission(anonymous, readCompiled, write, projection, protectedFields, merged, management, key);
    }

    static Rule compile(JsonNode doc, QueryLimits limits, Json json) {
        JsonNode rawId = doc.path("_id");
        String id = rawId.isString() ? rawId.asString() : rawId.isMissingNode() ? "?" : json.text(rawId);
        Set<String> roles = roles(doc.get("roles"));
        int priority = doc.path("priority").isNumber() ? doc.get("priority").asInt() : DEFAULT_PRIORITY;
        try {
            return compile(id, roles, priority, doc, limits, json);
        } catch (WeftException | ClassCastException e) {
            return broken(id, roles, priority, e.getMessage());
        }
    }

    static Rule broken(String id, Set<String> roles, int priority, String why) {
        return new Rule(id, roles, priority, new RequestPredicate.Constant(true), Optional.empty(), Optional.empty(),
                Optional.empty(), "", List.of(), Optional.empty(), false, Optional.of(why), Optional.empty(),
                Optional.empty());
    }

    private static Rule compile(String id, Set<String> roles, int priority, JsonNode doc, QueryLimits limits, Json json) {
        if (!doc.path("predicate").isString()) {
            throw WeftException.badRequest("predicate must be a string such as \"path-prefix('/db/coll') and method(GET)\"");
        }
        RequestPredicate predicate = RequestPredicate.parse(doc.get("predicate").asString());
        JsonNode mongo = doc.path("mongo").isObject() ? doc.get("mongo") : doc;
        Optional<Template> read = filterTemplate(mongo, "readFilter", limits);
        Optional<Template> write = filterTemplate(mongo, "writeFilter", limits);
        Optional<Projection> projection = Optional.empty();
        String projectionKey = "";
        JsonNode project = mongo.get("projectResponse");
        if (project != null && !project.isNull()) {
            if (!project.isObject()) {
                throw WeftException.badRequest("projectResponse must be an object such as {\"secret\":0}");
            }
            projection = Optional.of(Projection.parse(project));
            projectionKey = json.text(project);
        }
        List<String> protectedFields = new ArrayList<>();
        for (String name : List.of("protectedFields", "protectedProps")) {
            JsonNode fields = mongo.get(name);
            if (fields != null && !fields.isNull()) {
                if (!fields.isArray()) {
                    throw WeftException.badRequest(name + " must be an array of field paths");
                }
                fields.forEach(f -> protectedFields.add(f.asString()));
            }
        }
        Optional<Template> merge = Optional.empty();
        JsonNode mergeRequest = mongo.get("mergeRequest");
        if (mergeRequest != null && !mergeRequest.isNull()) {
            if (!mergeRequest.isObject()) {
                throw WeftException.badRequest("mergeRequest must be an object such as {\"owner\":\"@user._id\"}");
            }
            merge = Optional.of(Template.of(mergeRequest, "mergeRequest"));
        }
        boolean management = mongo.path("allowManagementRequests").asBoolean(false);
        boolean constant = read.map(Template::constant).orElse(true) && write.map(Template::constant).orElse(true)
                && merge.map(Template::constant).orElse(true);
        Rule rule = new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                List.copyOf(protectedFields), merge, management, Optional.empty(), Optional.empty(), Optional.empty());
        if (!constant) {
            return rule;
        }
        // No variables: build the two permissions (anonymous or not) once.
        Principal nobody = new Principal("", Set.of());
        Permission anonymous = rule.build(nobody, true, 0, limits, json);
        Permission named = rule.build(nobody, false, 0, limits, json);
        return new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                List.copyOf(protectedFields), merge, management, Optional.empty(), Optional.of(named), Optional.of(anonymous));
    }

    /** A filter template, test-compiled once with placeholder values so a bad filter fails at load time. */
    private static Optional<Template> filterTemplate(JsonNode mongo, String name, QueryLimits limits) {
        JsonNode spec = mongo.get(name);
        if (spec == null || spec.isNull()) {
            return Optional.empty();
        }
        if (!spec.isObject()) {
            throw WeftException.badRequest(name + " must be a filter object");
        }
        Template template = Template.of(spec, name);
        Filter.parse(template.resolve(new Principal("x", Set.of("x")), 0), limits);
        return Optional.of(template);
    }

    private static Set<String> roles(JsonNode roles) {
        Set<String> out = new LinkedHashSet<>();
        if (roles != null && roles.isArray()) {
            roles.forEach(r -> out.add(r.asString()));
        } else if (roles != null && roles.isString()) {
            out.add(roles.asString());
        }
        return Set.copyOf(out);
    }
}
