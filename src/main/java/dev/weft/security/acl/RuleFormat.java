package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.RelaxedJson;
import dev.weft.core.WeftException;
import dev.weft.query.RestheartEscapes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shape of a rule document, checked field by field before anything is compiled, so that a
 * value a rule cannot hold is a 400 naming it (never a parser exception, never a field silently
 * ignored or read as something else). Restrictions sit either at the top level or under
 * {@code mongo} (RESTHeart's place), not both: a second copy would be ignored.
 *
 * <p>The fields are RESTHeart's ({@code readFilter}, {@code writeFilter}, {@code mergeRequest},
 * {@code projectResponse}, {@code protectedProps}, and the four {@code allow*} flags, false
 * unless written) plus Weft's {@code protectedFields}. RESTHeart's escapes in stored filters
 * ({@code "_$gt"} for {@code "$gt"}, {@code ::} for a dot) are undone in {@code readFilter} and
 * {@code writeFilter}, as RESTHeart does, and refused elsewhere.
 */
final class RuleFormat {
    static final Set<String> DOCUMENT_FIELDS = Set.of("_id", "_etag", "roles", "predicate", "priority", "description",
            "mongo");
    static final Set<String> FILTERS = Set.of("readFilter", "writeFilter", "mergeRequest", "projectResponse");
    /** The filters RESTHeart reads with its stored-key escapes undone. */
    static final List<String> ESCAPED_FILTERS = List.of("readFilter", "writeFilter");
    static final Set<String> PATH_LISTS = Set.of("protectedFields", "protectedProps");
    static final String MANAGEMENT = "allowManagementRequests";
    static final String BULK_PATCH = "allowBulkPatch";
    static final String BULK_DELETE = "allowBulkDelete";
    static final String WRITE_MODE = "allowWriteMode";
    static final String ADHOC_AGGREGATIONS = "allowAdhocAggregations";
    static final Set<String> FLAGS = Set.of(MANAGEMENT, BULK_PATCH, BULK_DELETE, WRITE_MODE, ADHOC_AGGREGATIONS);

    private RuleFormat() {}

    /** The object holding the restrictions (the rule itself or its {@code mongo}); 400 for any field out of place. */
    static JsonNode restrictions(JsonNode doc) {
        JsonNode mongo = doc.get("mongo");
        boolean nested = mongo != null && !mongo.isNull();
        if (nested && !mongo.isObject()) {
            throw WeftException.badRequest("mongo must be an object holding the rule's restrictions");
        }
        for (Map.Entry<String, JsonNode> field : doc.properties()) {
            String name = field.getKey();
            if (DOCUMENT_FIELDS.contains(name)) {
                continue;
            }
            if (!isRestriction(name)) {
                throw unknown(name);
            }
            if (nested) {
                throw WeftException.badRequest(name + " is given both at the top level and with a mongo section:"
                        + " put every restriction under mongo");
            }
        }
        if (nested) {
            mongo.propertyNames().forEach(name -> {
                if (!isRestriction(name)) {
                    throw unknown("mongo." + name);
                }
            });
        }
        ObjectNode restrictions = parseJsonStrings(nested ? mongo : doc);
        for (String filter : ESCAPED_FILTERS) {
            JsonNode value = restrictions.get(filter);
            if (value != null) {
                restrictions.set(filter, RestheartEscapes.undo(value));
            }
        }
        restrictions.properties().forEach(e -> refuseEscapes(e.getKey(), e.getValue()));
        return restrictions;
    }

    /**
     * A copy in which a filter, {@code mergeRequest} or {@code projectResponse} written as a JSON
     * string (RESTHeart's YAML: {@code projectResponse: '{"log": 0}'}) is that JSON, read
     * relaxed as RESTHeart reads it.
     */
    private static ObjectNode parseJsonStrings(JsonNode restrictions) {
        ObjectNode copy = ((ObjectNode) restrictions).deepCopy();
        for (String name : FILTERS) {
            JsonNode value = copy.get(name);
            if (value != null && value.isString()) {
                copy.set(name, RelaxedJson.parse(value.asString(), name));
            }
        }
        return copy;
    }

    private static boolean isRestriction(String name) {
        return FILTERS.contains(name) || PATH_LISTS.contains(name) || FLAGS.contains(name);
    }

    private static WeftException unknown(String name) {
        return WeftException.badRequest("unknown rule field " + name + ": a rule has roles, predicate, priority,"
                + " description and the restrictions readFilter, writeFilter, mergeRequest, projectResponse,"
                + " protectedFields (or protectedProps), " + MANAGEMENT + ", " + BULK_PATCH + ", " + BULK_DELETE + ", "
                + WRITE_MODE + ", " + ADHOC_AGGREGATIONS + " (at the top level or under mongo)");
    }

    /** Outside the filters RESTHeart keeps {@code _$} as it is; here that would silently be a field name. */
    private static void refuseEscapes(String field, JsonNode value) {
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (e.getKey().startsWith("_$")) {
                    throw WeftException.badRequest(field + ": '" + e.getKey() + "' is RESTHeart's escape for '"
                            + e.getKey().substring(1) + "'; write '" + e.getKey().substring(1) + "'");
                }
                refuseEscapes(field, e.getValue());
            }
        } else if (value.isArray()) {
            value.forEach(element -> refuseEscapes(field, element));
        }
    }

    /** {@code roles}: one role name or an array of them, each a non-empty string. */
    static Set<String> roles(JsonNode roles) {
        if (roles == null || roles.isNull()) {
            throw WeftException.badRequest("roles is required: an array of role names");
        }
        Set<String> out = new LinkedHashSet<>();
        if (roles.isString()) {
            out.add(roleName(roles));
        } else if (roles.isArray()) {
            roles.forEach(r -> out.add(roleName(r)));
        } else {
            throw WeftException.badRequest("roles must be an array of role names");
        }
        return Set.copyOf(out);
    }

    private static String roleName(JsonNode role) {
        if (!role.isString() || role.asString().isEmpty()) {
            throw WeftException.badRequest("roles must hold non-empty strings, not " + role);
        }
        return role.asString();
    }

    /** The role names a broken rule still denies: whatever strings it lists. */
    static Set<String> readableRoles(JsonNode roles) {
        Set<String> out = new LinkedHashSet<>();
        if (roles != null && roles.isString()) {
            out.add(roles.asString());
        } else if (roles != null && roles.isArray()) {
            roles.forEach(r -> {
                if (r.isString()) {
                    out.add(r.asString());
                }
            });
        }
        return Set.copyOf(out);
    }

    /** {@code priority}: an integer that fits 32 bits, or absent for {@code fallback}. */
    static int priority(JsonNode priority, int fallback) {
        if (priority == null || priority.isMissingNode()) {
            return fallback;
        }
        if (!priority.isNumber() || !priority.canConvertToExactIntegral() || !priority.canConvertToInt()) {
            throw WeftException.badRequest("priority must be an integer between " + Integer.MIN_VALUE + " and "
                    + Integer.MAX_VALUE + ", not " + priority);
        }
        return priority.asInt();
    }

    /** A flag: absent or null is false (RESTHeart's default), else it must be a boolean. */
    static boolean flag(JsonNode restrictions, String name) {
        JsonNode value = restrictions.get(name);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw WeftException.badRequest(name + " must be true or false, not " + value);
        }
        return value.asBoolean();
    }

    /** {@code protectedFields} and {@code protectedProps}: arrays of dotted paths. */
    static List<String> protectedPaths(JsonNode restrictions) {
        List<String> paths = new ArrayList<>();
        for (String name : PATH_LISTS) {
            JsonNode list = restrictions.get(name);
            if (list == null || list.isNull()) {
                continue;
            }
            if (!list.isArray()) {
                throw WeftException.badRequest(name + " must be an array of field paths");
            }
            for (JsonNode path : list) {
                paths.add(fieldPath(name, path));
            }
        }
        return List.copyOf(paths);
    }

    private static String fieldPath(String list, JsonNode path) {
        if (!path.isString() || path.asString().isEmpty()) {
            throw WeftException.badRequest(list + " must hold field paths such as \"owner\" or \"items.price\", not " + path);
        }
        for (String segment : path.asString().split("\\.", -1)) {
            if (segment.isEmpty() || segment.startsWith("$")) {
                throw WeftException.badRequest(list + ": '" + path.asString() + "' is not a field path"
                        + " (empty segment or operator)");
            }
        }
        return path.asString();
    }

    /** An optional object-valued restriction; 400 when present and not an object. */
    static Optional<JsonNode> object(JsonNode restrictions, String name, String example) {
        JsonNode value = restrictions.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            throw WeftException.badRequest(name + " must be an object such as " + example);
        }
        return Optional.of(value);
    }
}
