package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An update's {@code arrayFilters}: one filter per identifier, each naming the element as
 * {@code id} (the element itself) or {@code id.field}; compiled with the element renamed to
 * {@link PositionalPaths#ELEMENT}. MongoDB's refusals are 400: an identifier that is not a
 * lowercase-initial alphanumeric name, two filters for one identifier, a filter naming two, one
 * the update does not use, and a {@code $[id]} without a filter.
 */
final class ArrayFilters {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-zA-Z0-9]*");

    private final Map<String, Filter> filters;
    private final Map<String, Set<String>> paths;
    private final Set<String> used = new HashSet<>();
    private final Set<String> probed = new LinkedHashSet<>();

    private ArrayFilters(Map<String, Filter> filters, Map<String, Set<String>> paths) {
        this.filters = filters;
        this.paths = paths;
    }

    /** {@code spec} is the JSON array of filters, or null when the request has none. */
    static ArrayFilters parse(JsonNode spec, QueryLimits limits) {
        Map<String, Filter> filters = new LinkedHashMap<>();
        Map<String, Set<String>> paths = new LinkedHashMap<>();
        if (spec == null) {
            return new ArrayFilters(filters, paths);
        }
        if (!spec.isArray()) {
            throw WeftException.badRequest("arrayFilters must be a JSON array of filters");
        }
        for (JsonNode filter : spec) {
            if (!filter.isObject() || filter.isEmpty()) {
                throw WeftException.badRequest("arrayFilters: each filter must be a non-empty JSON object, found " + filter);
            }
            String id = null;
            ObjectNode renamed = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : filter.properties()) {
                String name = e.getKey();
                String first = name.split("\\.", 2)[0];
                if (!IDENTIFIER.matcher(first).matches()) {
                    throw WeftException.badRequest("arrayFilters: '" + first + "' is not an identifier"
                            + " (a lowercase letter, then letters and digits)");
                }
                if (id != null && !id.equals(first)) {
                    throw WeftException.badRequest("arrayFilters: one filter names two identifiers, '" + id + "' and '" + first + "'");
                }
                id = first;
                renamed.set(PositionalPaths.ELEMENT + name.substring(first.length()), e.getValue());
            }
            if (filters.containsKey(id)) {
                throw WeftException.badRequest("arrayFilters: two filters for the identifier '" + id + "'");
            }
            Filter compiled = Filter.parse(renamed, limits);
            filters.put(id, compiled);
            paths.put(id, compiled.paths());
        }
        return new ArrayFilters(filters, paths);
    }

    /** A {@code $[id]} of the update at {@code path}, whose array is at {@code arrayPath}. */
    void use(String id, String arrayPath, String op, Path path) {
        if (id.isEmpty()) {
            return;
        }
        if (!filters.containsKey(id)) {
            throw WeftException.badRequest(op + " at '" + path + "': no array filter found for identifier '" + id + "'");
        }
        used.add(id);
        for (String p : paths.get(id)) {
            String full = arrayPath + p.substring(PositionalPaths.ELEMENT.length());
            probed.add(String.join(".", java.util.Arrays.stream(full.split("\\."))
                    .filter(segment -> !PositionalPaths.isPositional(segment)).toList()));
        }
    }

    void checkAllUsed() {
        for (String id : filters.keySet()) {
            if (!used.contains(id)) {
                throw WeftException.badRequest("arrayFilters: the filter for identifier '" + id + "' was not used in the update");
            }
        }
    }

    Map<String, Filter> filters() {
        return filters;
    }

    /** The document paths the filters read, positions dropped ({@code items.price} for {@code $[i]} with {@code i.price}). */
    Set<String> probedPaths() {
        return Set.copyOf(probed);
    }
}
