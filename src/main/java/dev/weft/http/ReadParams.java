package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.Projection;
import dev.weft.query.Sort;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The parse stage of a read: {@code filter} (repeatable, ANDed), {@code keys} (repeatable,
 * merged), {@code sort}, {@code page}, {@code pagesize}, {@code count}, {@code hint}. Each bad
 * parameter is a 400 naming it. {@link #cacheKey} is the normalized text of everything that
 * shapes the result, for {@link ResultCache}.
 */
record ReadParams(Filter filter, Optional<Projection> projection, Sort sort, int page, int pageSize,
                  boolean count, Optional<String> hint, String cacheKey) {

    static ReadParams parse(Exchange ex, Api api, Namespace ns) {
        List<String> filters = ex.params("filter");
        List<Filter> parsed = new ArrayList<>(filters.size());
        for (String f : filters) {
            parsed.add(Filter.parse(jsonParam(api, "filter", f), api.limits()));
        }
        Filter filter = switch (parsed.size()) {
            case 0 -> Filter.all();
            case 1 -> parsed.getFirst();
            default -> Filter.and(parsed);
        };
        Optional<Projection> projection = projection(ex, api);
        Sort sort = sort(ex, api);
        int page = intParam(ex, "page", 1, 1, Integer.MAX_VALUE);
        int pageSize = intParam(ex, "pagesize", api.settings().defaultPageSize(), 0, api.settings().maxPageSize());
        Optional<String> hint = hint(ex, api, ns);
        String key = ns + "|" + String.join("\u0001", filters) + "|" + String.join("\u0001", ex.params("keys"))
                + "|" + String.join("\u0001", ex.params("sort")) + "|" + page + "|" + pageSize + "|" + hint.orElse("");
        return new ReadParams(filter, projection, sort, page, pageSize, ex.hasParam("count"), hint, key);
    }

    /** Just the filters, for {@code _size} and bulk writes. */
    static Filter filterOnly(Exchange ex, Api api) {
        List<Filter> parsed = new ArrayList<>();
        for (String f : ex.params("filter")) {
            parsed.add(Filter.parse(jsonParam(api, "filter", f), api.limits()));
        }
        return parsed.isEmpty() ? Filter.all() : parsed.size() == 1 ? parsed.getFirst() : Filter.and(parsed);
    }

    long skip() {
        return (long) (page - 1) * pageSize;
    }

    static JsonNode jsonParam(Api api, String name, String value) {
        if (value.length() > api.settings().maxFilterBytes()) {
            throw WeftException.badRequest(name + " is longer than max-filter-bytes (" + api.settings().maxFilterBytes() + ")");
        }
        return api.json().parse(value, "query parameter " + name);
    }

    private static Optional<Projection> projection(Exchange ex, Api api) {
        List<String> keys = ex.params("keys");
        if (keys.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode merged = dev.weft.core.Json.NODES.objectNode();
        for (String k : keys) {
            JsonNode spec = jsonParam(api, "keys", k);
            if (!spec.isObject()) {
                throw WeftException.badRequest("keys must be a JSON object such as {\"name\":1}");
            }
            merged.setAll((ObjectNode) spec);
        }
        return Optional.of(Projection.parse(merged));
    }

    private static Sort sort(Exchange ex, Api api) {
        List<String> specs = ex.params("sort");
        if (specs.isEmpty()) {
            return Sort.ID_DESCENDING;
        }
        List<IndexField> fields = new ArrayList<>();
        for (String s : specs) {
            if (s.length() > api.settings().maxFilterBytes()) {
                throw WeftException.badRequest("sort is longer than max-filter-bytes");
            }
            fields.addAll(Sort.parse(s, api.limits()).fields());
        }
        return new Sort(List.copyOf(fields));
    }

    /** {@code hint} names an index, or gives its keys as JSON or {@code +a,-b}: resolved to a name. */
    private static Optional<String> hint(Exchange ex, Api api, Namespace ns) {
        Optional<String> raw = ex.param("hint");
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        List<IndexSpec> indexes = api.store().indexes(ns);
        for (IndexSpec index : indexes) {
            if (index.name().equals(raw.get())) {
                return raw;
            }
        }
        List<IndexField> wanted = Sort.parse(raw.get(), api.limits()).fields();
        return Optional.of(indexes.stream().filter(i -> i.fields().equals(wanted)).findFirst()
                .orElseThrow(() -> WeftException.badRequest("hint " + raw.get() + " names no index of " + ns))
                .name());
    }

    static int intParam(Exchange ex, String name, int fallback, int min, int max) {
        Optional<String> raw = ex.param(name);
        if (raw.isEmpty()) {
            return fallback;
        }
        int value;
        try {
            value = Integer.parseInt(raw.get().trim());
        } catch (NumberFormatException e) {
            throw WeftException.badRequest(name + " must be an integer, not " + raw.get());
        }
        if (value < min || value > max) {
            throw WeftException.badRequest(name + " must be between " + min + " and " + max + ", not " + value);
        }
        return value;
    }
}
