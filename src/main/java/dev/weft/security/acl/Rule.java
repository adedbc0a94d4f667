package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import dev.weft.security.AccessRequest;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One compiled access rule, from the rules collection or the ACL file. The document's fields may
 * sit at the top level or, as in RESTHeart, under {@code mongo}. Everything is parsed and compiled
 * when the rules load; per request only variables are substituted ({@link Template}), and a rule
 * without variables hands out one permission built at load time.
 *
 * <p>A rule that cannot be compiled (one stored below the API, or before its checks) is kept as a
 * {@linkplain #broken broken} rule that matches every request of its roles at its priority (the
 * first tried when the priority itself is unreadable) and denies it: a typo in a narrowing rule
 * must not let a broader rule tried after it take over. Compiling never throws.
 */
record Rule(String id, Set<String> roles, int priority, RequestPredicate predicate, Optional<Template> readFilter,
            Optional<Template> writeFilter, Optional<Projection> projection, String projectionKey,
            List<String> protectedFields, Optional<Template> merge, Permission.Allowances allows, Optional<String> broken,
            Optional<Permission> fixed, Optional<Permission> fixedAnonymous, JsonNode restrictions) {

    /**
     * Which priority is tried first: RESTHeart's mongo ACL (the rules collection) reads rules
     * sorted {@code {priority: -1, _id: -1}}, its file ACL lowest priority first. In both, a rule
     * without a priority is tried last.
     */
    enum Order {
        HIGHEST_FIRST(Integer.MIN_VALUE, Integer.MAX_VALUE),
        LOWEST_FIRST(Integer.MAX_VALUE, Integer.MIN_VALUE);

        final int missing;
        final int first;

        Order(int missing, int first) {
            this.missing = missing;
            this.first = first;
        }
    }

    /** A filter that matches no document: what an unresolved variable makes of a filter. */
    private static final Filter NOTHING = Filter.parse(Json.NODES.objectNode().set("_id",
            Json.NODES.objectNode().set("$in", Json.NODES.arrayNode())), QueryLimits.defaults());

    boolean appliesTo(Principal principal) {
        for (String role : principal.roles()) {
            if (roles.contains(role)) {
                return true;
            }
        }
        return false;
    }

    /** The permission this rule grants the request; throws 400 for a filter that no longer compiles. */
    Permission permission(RequestPredicate.Subject s, QueryLimits limits, Json json) {
        boolean anonymous = s.principal().name().isEmpty();
        if (broken.isPresent()) {
            throw Permission.denied(anonymous, "access rule " + id + " is invalid, so it denies: " + broken.get());
        }
        Optional<Permission> prebuilt = anonymous ? fixedAnonymous : fixed;
        if (prebuilt.isPresent()) {
            return prebuilt.get();
        }
        return build(s, anonymous, limits, json);
    }

    /**
     * An unresolved variable makes its filter match nothing; in {@code mergeRequest} it makes the
     * write filter match nothing, so no write goes through with a field it could not set.
     */
    private Permission build(RequestPredicate.Subject s, boolean anonymous, QueryLimits limits, Json json) {
        Optional<Optional<JsonNode>> read = readFilter.map(t -> t.resolve(s, restrictions));
        Optional<Filter> readCompiled = read.map(r -> r.map(f -> Filter.parse(f, limits)).orElse(NOTHING));
        Optional<Optional<JsonNode>> merged = merge.map(t -> t.resolve(s, restrictions));
        boolean mergeUnresolved = merged.isPresent() && merged.get().isEmpty();
        Optional<Filter> write = mergeUnresolved ? Optional.of(NOTHING) : writeFilter.map(t ->
                t.resolve(s, restrictions).map(f -> Filter.parse(f, limits)).orElse(NOTHING));
        Optional<ObjectNode> mergeDoc = merged.flatMap(m -> m).map(m -> (ObjectNode) m);
        String key = read.map(r -> r.map(json::text).orElse("\u0000nothing")).orElse("") + "\u0002" + projectionKey;
        return new Permission(anonymous, readCompiled, write, projection, protectedFields, mergeDoc, allows, key);
    }

    /** A rule of the rules collection (highest priority first). */
    static Rule compile(JsonNode doc, QueryLimits limits, Json json) {
        return compile(doc, limits, json, Order.HIGHEST_FIRST);
    }

    /** The compiled rule, or a broken one saying why it does not compile; never throws. */
    static Rule compile(JsonNode doc, QueryLimits limits, Json json, Order order) {
        JsonNode rawId = doc.path("_id");
        String id = rawId.isString() ? rawId.asString() : rawId.isMissingNode() ? "?" : json.text(rawId);
        try {
            Set<String> roles = RuleFormat.roles(doc.get("roles"));
            int priority = RuleFormat.priority(doc.get("priority"), order.missing);
            return compile(id, roles, priority, doc, limits, json);
        } catch (RuntimeException e) {
            int priority;
            try {
                priority = RuleFormat.priority(doc.get("priority"), order.missing);
            } catch (WeftException unreadable) {
                priority = order.first;
            }
            String why = e instanceof WeftException ? e.getMessage() : "cannot be read (" + e.getMessage() + ")";
            return broken(id, RuleFormat.readableRoles(doc.get("roles")), priority, why);
        }
    }

    static Rule broken(String id, Set<String> roles, int priority, String why) {
        return new Rule(id, roles, priority, new RequestPredicate.Constant(true), Optional.empty(), Optional.empty(),
                Optional.empty(), "", List.of(), Optional.empty(), Permission.Allowances.NONE, Optional.of(why),
                Optional.empty(), Optional.empty(), Json.NODES.objectNode());
    }

    private static Rule compile(String id, Set<String> roles, int priority, JsonNode doc, QueryLimits limits, Json json) {
        JsonNode restrictions = RuleFormat.restrictions(doc);
        if (!doc.path("predicate").isString()) {
            throw WeftException.badRequest("predicate must be a string such as \"path-prefix('/db/coll') and method(GET)\"");
        }
        RequestPredicate predicate = new PredicateParser(doc.get("predicate").asString(), limits.maxRegexLength()).parseAll();
        Optional<Template> read = filterTemplate(restrictions, "readFilter", limits);
        Optional<Template> write = filterTemplate(restrictions, "writeFilter", limits);
        Optional<JsonNode> project = RuleFormat.object(restrictions, "projectResponse", "{\"secret\":0}")
                .map(Rule::withoutIdUnlessNamed);
        Optional<Projection> projection = project.map(Projection::parse);
        String projectionKey = project.map(json::text).orElse("");
        List<String> protectedFields = RuleFormat.protectedPaths(restrictions);
        Optional<Template> merge = RuleFormat.object(restrictions, "mergeRequest", "{\"owner\":\"@user._id\"}")
                .map(m -> Template.of(m, "mergeRequest"));
        Permission.Allowances allows = new Permission.Allowances(
                RuleFormat.flag(restrictions, RuleFormat.MANAGEMENT), RuleFormat.flag(restrictions, RuleFormat.BULK_PATCH),
                RuleFormat.flag(restrictions, RuleFormat.BULK_DELETE), RuleFormat.flag(restrictions, RuleFormat.WRITE_MODE),
                RuleFormat.flag(restrictions, RuleFormat.ADHOC_AGGREGATIONS));
        boolean constant = read.map(Template::constant).orElse(true) && write.map(Template::constant).orElse(true)
                && merge.map(Template::constant).orElse(true);
        Rule rule = new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                protectedFields, merge, allows, Optional.empty(), Optional.empty(), Optional.empty(), restrictions);
        if (!constant) {
            return rule;
        }
        // No variables: build the two permissions (anonymous or not) once.
        Permission anonymous = rule.build(placeholder(Principal.ANONYMOUS), true, limits, json);
        Permission named = rule.build(placeholder(Principal.ANONYMOUS), false, limits, json);
        return new Rule(id, roles, priority, predicate, read, write, projection, projectionKey,
                protectedFields, merge, allows, Optional.empty(), Optional.of(named), Optional.of(anonymous), restrictions);
    }

    /**
     * RESTHeart's projectResponse keeps only the fields an inclusion names, {@code _id} too
     * (unlike a MongoDB projection, which keeps {@code _id} unless told otherwise).
     */
    private static JsonNode withoutIdUnlessNamed(JsonNode projection) {
        boolean inclusion = projection.properties().stream().findFirst()
                .map(e -> e.getValue().asDouble(0) != 0 || e.getValue().asBoolean(false)).orElse(false);
        if (!inclusion || projection.has("_id")) {
            return projection;
        }
        ObjectNode copy = ((ObjectNode) projection).deepCopy();
        copy.put("_id", 0);
        return copy;
    }

    private static RequestPredicate.Subject placeholder(Principal principal) {
        return new RequestPredicate.Subject(principal, AccessRequest.of("GET", List.of()));
    }

    /** A filter template, test-compiled once with placeholder values so a bad filter fails at load time. */
    private static Optional<Template> filterTemplate(JsonNode restrictions, String name, QueryLimits limits) {
        Optional<JsonNode> spec = RuleFormat.object(restrictions, name, "{\"owner\":\"@user._id\"}");
        if (spec.isEmpty()) {
            return Optional.empty();
        }
        Template template = Template.of(spec.get(), name);
        template.resolve(placeholder(new Principal("x", Set.of("x"))), restrictions).ifPresent(f -> Filter.parse(f, limits));
        return Optional.of(template);
    }
}
