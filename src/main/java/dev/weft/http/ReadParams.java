package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.RelaxedJson;
import dev.weft.core.WeftException;
import dev.weft.query.AfterPosition;
import dev.weft.query.BoundedMemo;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.SortPosition;
import dev.weft.query.TextSearch;
import dev.weft.store.plan.TextScores;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import dev.weft.security.DocumentAccess;
import dev.weft.store.IndexSpec;
import dev.weft.store.plan.WrittenFilter;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The parse stage of a list read: {@code filter} (repeatable, ANDed), {@code keys}
 * (repeatable, merged), {@code sort}, {@code page}, {@code pagesize}, {@code count}, {@code hint},
 * {@code readMode} (see {@link Api#readMode}; part of the cache key, so an outdated result is
 * never served to a read that asked for the primary), {@code after} (a keyset cursor token: the
 * filter then also requires documents after the token's position, see {@link CursorTokens}).
 * Each bad parameter is a 400 naming it. What the principal may ask and see is not decided here
 * but by the request's {@link DocumentAccess}, which every parameter passes through: the filter
 * comes back narrowed, the keys as the {@link DocumentAccess.View} documents are rendered with.
 * {@link #cacheKey} is the normalized text of everything that shapes the result, the permission
 * included, for {@link ResultCache}. Only {@link FindPlan} runs a read with these.
 */
record ReadParams(Filter filter, DocumentAccess.View view, Sort sort, int page, int pageSize,
                  boolean count, Optional<String> hint, ReadMode readMode, String fingerprint,
                  Optional<SortPosition> after, StoreTextScore textScore) {
    /** The parameter that continues a keyset walk: the token of the page before ({@link CursorTokens}). */
    static final String AFTER = "after";


    static ReadParams parse(Exchange ex, Api api, Namespace ns, DocumentAccess access) {
        List<ParsedFilter> parsed = parsedFilters(ex, api); // parsed once: the filter and a positional projection read them
        List<JsonNode> specs = specs(parsed);
        Filter filter = filter(ex, api, access, parsed, specs);
        StoreTextScore textScore = new StoreTextScore();
        DocumentAccess.View view = view(ex, api, access, filter, specs, textScore);
        Sort sort = sort(ex, api, access);
        if (sort.byTextScore() && filter.textSearch().isEmpty()) {
            throw WeftException.badRequest(TextScores.NO_SCORE);
        }
        if (sort.byTextScore() && ex.hasParam(AFTER)) {
            throw WeftException.badRequest("after cannot continue a sort by textScore (no index holds it): ask for the next page");
        }
        int page = intParam(ex, "page", 1, 1, Integer.MAX_VALUE);
        int pageSize = intParam(ex, "pagesize", api.settings().defaultPageSize(), 0, api.settings().maxPageSize());
        Optional<String> hint = hint(ex, api, ns);
        String fingerprint = fingerprint(ex, ns);
        Optional<SortPosition> after = ex.param(AFTER).map(token -> api.cursors().open(token, fingerprint));
        return new ReadParams(after.map(p -> continuing(filter, sort, p)).orElse(filter), view, sort, page, pageSize,
                ex.hasParam("count"), hint, api.readMode(ex, ns), fingerprint, after, textScore);
    }

    /**
     * What a cursor token is bound to: everything that decides which documents a walk returns
     * and in which order (collection, filters, sort, hint, and the permission, whose rule may
     * narrow the filter), but not the page size or the projection, which a client may change
     * between pages.
     */
    private static String fingerprint(Exchange ex, Namespace ns) {
        return "cursor|" + ns + "|" + String.join("\u0001", ex.params("filter")) + "|"
                + String.join("\u0001", ex.params("sort")) + "|" + ex.param("hint").orElse("")
                + "|" + ex.permission().cacheKey();
    }

    /** {@code filter} from just after {@code position} in {@code sort}'s order, keeping what it was written as. */
    private static Filter continuing(Filter filter, Sort sort, SortPosition position) {
        if (filter instanceof WrittenFilter w) {
            return new WrittenFilter(new AfterPosition(w.compiled(), sort, position, false), w.written());
        }
        return new AfterPosition(filter, sort, position, false);
    }

    /**
     * The result cache key of a list read, made of the raw parameters and the permission: equal
     * raw parameters parse to the same query, so a cache hit needs no parsing at all. The raw
     * {@code readMode} is part of it: with the collection's properties fixed (changing them
     * changes every version, see {@link dev.weft.store.Store#version}), equal raw values resolve
     * to the same read mode, so a result read from a replica is never served to a primary read.
     */
    static String cacheKey(Exchange ex, Namespace ns) {
        return "list|" + ns + "|" + String.join("\u0001", ex.params("filter")) + "|" + String.join("\u0001", ex.params("keys"))
                + "|" + String.join("\u0001", ex.params("sort")) + "|" + ex.param("page").orElse("")
                + "|" + ex.param("pagesize").orElse("") + "|" + ex.param("hint").orElse("")
                + "|" + ex.param(Api.READ_MODE).orElse("") + "|" + ex.param(AFTER).orElse("")
                + "|" + ex.permission().cacheKey();
    }

    /** The client's filters narrowed to what {@code access} may read, for {@code _size} and every other read. */
    static Filter filter(Exchange ex, Api api, DocumentAccess access) {
        List<ParsedFilter> parsed = parsedFilters(ex, api);
        return filter(ex, api, access, parsed, specs(parsed));
    }

    /** The specs of {@code parsed}, in order (a loop: this runs on every list request). */
    private static List<JsonNode> specs(List<ParsedFilter> parsed) {
        List<JsonNode> specs = new ArrayList<>(parsed.size());
        for (ParsedFilter p : parsed) {
            specs.add(p.spec());
        }
        return specs;
    }

    private static Filter filter(Exchange ex, Api api, DocumentAccess access, List<ParsedFilter> parsed, List<JsonNode> specs) {
        Filter read = access.readFilter(specs, spec -> compiled(parsed, spec, api));
        return WrittenFilter.of(TextQueries.bind(read, api, api.namespace(ex), access), specs);
    }

    /**
     * Most filter texts kept parsed ({@link #PARSED}). With keys of at most
     * {@link BoundedMemo#SMALL_KEY_CHARS} characters (longer filters are parsed each time), the
     * memo holds at most about 256 × 2 KB of filter text and the trees parsed from it.
     */
    static final int MAX_PARSED_FILTERS = 256;

    /**
     * Filter parameters as parsed, by their text and what parsing them depends on (the relaxed
     * codec and the query limits; nothing of the principal or the collection), so that a list
     * asked again (a poll, the next page) parses nothing. Bad filters are not kept: they fail
     * again with the same 400. The policy's check and the principal's read filter are applied to
     * the kept spec on every request ({@link DocumentAccess#readFilter(List, java.util.function.Function)}).
     */
    private static final BoundedMemo<FilterText, ParsedFilter> PARSED = new BoundedMemo<>(MAX_PARSED_FILTERS);

    private record FilterText(RelaxedJson codec, QueryLimits limits, String text) {}

    /**
     * One {@code filter} parameter parsed: its spec, which is shared between requests and so never
     * changed (every consumer, the compiler, {@link WrittenFilter}, a positional projection and the
     * policy's check, only reads it), and its compiled filter when that may be shared: compiled
     * without error and without {@code $text}, whose {@link TextSearch} each request binds to its
     * index and reader ({@link TextQueries#bind}); else compiled again per request (so a bad one
     * fails with the same 400, after the policy's check, as before).
     */
    private record ParsedFilter(JsonNode spec, Optional<Filter> shared) {
        static ParsedFilter of(FilterText key) {
            JsonNode spec = key.codec().read(key.text(), "query parameter filter");
            Optional<Filter> shared;
            try {
                Filter compiled = Filter.parse(spec, key.limits());
                shared = compiled.textSearch().isPresent() ? Optional.empty() : Optional.of(compiled);
            } catch (RuntimeException e) {
                shared = Optional.empty(); // thrown again, when and as the request compiles it
            }
            return new ParsedFilter(spec, shared);
        }
    }

    /** The client's {@code filter} parameters, in order, each checked for length then parsed or found parsed. */
    private static List<ParsedFilter> parsedFilters(Exchange ex, Api api) {
        List<String> texts = ex.params("filter");
        List<ParsedFilter> parsed = new ArrayList<>(texts.size());
        for (String text : texts) {
            checkLength(api, "filter", text);
            parsed.add(PARSED.get(new FilterText(relaxed(api), api.limits(), text), text.length(), ParsedFilter::of));
        }
        return parsed;
    }

    /** {@code spec} (one of {@code parsed}'s) compiled: the shared filter when there is one. */
    private static Filter compiled(List<ParsedFilter> parsed, JsonNode spec, Api api) {
        for (ParsedFilter p : parsed) {
            if (p.spec() == spec && p.shared().isPresent()) {
                return p.shared().get();
            }
        }
        return Filter.parse(spec, api.limits());
    }

    /** The client's {@code filter} parameters as JSON, in order. */
    static List<JsonNode> filterSpecs(Exchange ex, Api api) {
        List<JsonNode> specs = new ArrayList<>();
        for (String f : ex.params("filter")) {
            specs.add(jsonParam(api, "filter", f));
        }
        return specs;
    }

    long skip() {
        return (long) (page - 1) * pageSize;
    }

    static JsonNode jsonParam(Api api, String name, String value) {
        checkLength(api, name, value);
        return relaxed(api).read(value, "query parameter " + name);
    }

    private static void checkLength(Api api, String name, String value) {
        if (value.length() > api.settings().maxFilterBytes()) {
            throw WeftException.badRequest(name + " is longer than max-filter-bytes (" + api.settings().maxFilterBytes() + ")");
        }
    }

    private static volatile RelaxedJson relaxed;

    /** RESTHeart parses filter, keys, sort, hint and avars relaxed ({'a': 1}, {a: 1}); bodies stay strict. */
    static RelaxedJson relaxed(Api api) {
        RelaxedJson r = relaxed;
        if (r == null || !r.relaxes(api.json())) {
            r = new RelaxedJson(api.json());
            relaxed = r;
        }
        return r;
    }

    /** How a document read by id is shown: its {@code keys} under {@code access} (no textScore: there is no $text). */
    static DocumentAccess.View view(Exchange ex, Api api, DocumentAccess access) {
        return view(ex, api, access, Filter.all(), filterSpecs(ex, api), new StoreTextScore());
    }

    /**
     * How documents matching {@code filter} are shown: its {@code keys} under {@code access}, a
     * {@code {"$meta":"textScore"}} field: the score the store ranked each document by, else
     * computed by the filter's {@code $text} (400 without one).
     */
    private static DocumentAccess.View view(Exchange ex, Api api, DocumentAccess access, Filter filter,
                                            List<JsonNode> filterSpecs, StoreTextScore stored) {
        Optional<ObjectNode> keys = keys(ex, api);
        Map<String, ToDoubleFunction<JsonNode>> computed = new LinkedHashMap<>();
        if (keys.isPresent()) {
            ObjectNode rest = keys.get().deepCopy();
            for (Map.Entry<String, JsonNode> e : keys.get().properties()) {
                if (Sort.isTextScore(e.getValue())) {
                    TextSearch search = filter.textSearch().orElseThrow(() -> WeftException.badRequest(TextScores.NO_SCORE));
                    computed.put(e.getKey(), stored.orComputedBy(search));
                    rest.remove(e.getKey());
                }
            }
            keys = rest.isEmpty() ? Optional.empty() : Optional.of(rest);
        }
        return access.view(keys, filterSpecs, api.json(), computed);
    }

    /** The {@code keys} parameters merged into one projection spec; empty when there are none. */
    private static Optional<ObjectNode> keys(Exchange ex, Api api) {
        List<String> keys = ex.params("keys");
        if (keys.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode merged = Json.NODES.objectNode();
        for (String k : keys) {
            JsonNode spec = jsonParam(api, "keys", k);
            if (!spec.isObject()) {
                throw WeftException.badRequest("keys must be a JSON object such as {\"name\":1}");
            }
            merged.setAll((ObjectNode) spec);
        }
        return Optional.of(merged);
    }

    private static Sort sort(Exchange ex, Api api, DocumentAccess access) {
        List<String> specs = ex.params("sort");
        if (specs.isEmpty()) {
            return Sort.ID_DESCENDING;
        }
        List<IndexField> fields = new ArrayList<>();
        for (String s : specs) {
            if (s.length() > api.settings().maxFilterBytes()) {
                throw WeftException.badRequest("sort is longer than max-filter-bytes");
            }
            fields.addAll(Sort.parse(relaxed(api).strictText(s, "sort"), api.limits()).fields());
        }
        fields.stream().filter(f -> !f.path().equals(Sort.TEXT_SCORE)).forEach(f -> access.checkSortPath(f.path()));
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
        List<IndexField> wanted = Sort.parse(relaxed(api).strictText(raw.get(), "hint"), api.limits()).fields();
        return Optional.of(indexes.stream().filter(i -> i.ordered() && i.fields().equals(wanted)).findFirst()
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
