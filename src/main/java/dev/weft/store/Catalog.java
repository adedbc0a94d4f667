package dev.weft.store;

import dev.weft.core.Json;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.plan.PlanIndex;
import dev.weft.store.plan.QueryPlanner;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An immutable snapshot of the catalog tables of a SQL store: databases, collections (each with
 * a numeric id naming its document table {@code d<id>}) and indexes (table {@code i<id>}). The
 * store publishes a new snapshot after every catalog change commits; readers plan against the
 * snapshot they took. Ids are never reused (AUTOINCREMENT, a sequence), so neither is a dropped
 * table's name. The tables {@code weft_dbs}, {@code weft_colls} and {@code weft_indexes} have the
 * same columns in every engine; each store creates them in its own dialect.
 */
public record Catalog(Map<String, Db> dbs, Map<Namespace, Coll> colls) {

    public static final String ID_INDEX = QueryPlanner.ID_INDEX;

    public record Db(String name, byte[] props, String etag) {}

    public record Coll(Namespace ns, long id, byte[] props, String etag, List<Index> indexes) {
        public String table() {
            return "d" + id;
        }

        public Optional<Index> index(String name) {
            return indexes.stream().filter(i -> i.spec().name().equals(name)).findFirst();
        }

        /**
         * Whether {@code other} is this collection unchanged: same table, same properties (a
         * new etag is stamped on every change of them) and the same indexes (ids are never reused).
         */
        boolean sameAs(Coll other) {
            return id == other.id && etag.equals(other.etag)
                    && indexes.stream().map(Index::id).toList().equals(other.indexes.stream().map(Index::id).toList());
        }
    }

    /** {@link Index#markMultikey} calls that set a flag, over every catalog of the process. */
    private static final AtomicLong MULTIKEY_MARKS = new AtomicLong();

    /**
     * How many multikey flags were ever set: a reader that looked at flags before pinning its
     * snapshot compares it from before to after the pin (unchanged: the flags it saw hold for it).
     */
    public static long multikeyMarks() {
        return MULTIKEY_MARKS.get();
    }

    /**
     * An index definition. {@code multikey} only ever goes from false to true; the writer sets it
     * before the transaction that stores the first array commits, so no reader can see such a
     * document while still trusting the index's order.
     */
    public static final class Index implements PlanIndex {

        private final long id;
        private final IndexSpec spec;
        private volatile boolean multikey;

        public Index(long id, IndexSpec spec, boolean multikey) {
            this.id = id;
            this.spec = spec;
            this.multikey = multikey;
        }

        public long id() {
            return id;
        }

        @Override
        public IndexSpec spec() {
            return spec;
        }

        @Override
        public List<IndexField> fields() {
            return spec.fields();
        }

        @Override
        public boolean multikey() {
            return multikey;
        }

        public void markMultikey() {
            if (!multikey) {
                multikey = true;
                MULTIKEY_MARKS.incrementAndGet();
            }
        }

        public String table() {
            return "i" + id;
        }
    }

    public static Catalog load(Connection sql, Json json) throws SQLException {
        Map<String, Db> dbs = new TreeMap<>();
        try (PreparedStatement ps = sql.prepareStatement("SELECT name, props, etag FROM weft_dbs");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                dbs.put(rs.getString(1), new Db(rs.getString(1), rs.getBytes(2), rs.getString(3)));
            }
        }
        Map<Long, List<Index>> indexes = new TreeMap<>();
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT id, coll, name, fields, uniq, multikey FROM weft_indexes ORDER BY id");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                IndexSpec spec = decodeSpec(json, rs.getString(3), rs.getBytes(4), rs.getInt(5) != 0);
                indexes.computeIfAbsent(rs.getLong(2), k -> new ArrayList<>())
                        .add(new Index(rs.getLong(1), spec, rs.getInt(6) != 0));
            }
        }
        Map<Namespace, Coll> colls = new HashMap<>();
        try (PreparedStatement ps = sql.prepareStatement("SELECT id, db, name, props, etag FROM weft_colls");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                Namespace ns = new Namespace(rs.getString(2), rs.getString(3));
                colls.put(ns, new Coll(ns, id, rs.getBytes(4), rs.getString(5),
                        List.copyOf(indexes.getOrDefault(id, List.of()))));
            }
        }
        return new Catalog(Collections.unmodifiableMap(dbs), Map.copyOf(colls));
    }

    /** The collections created, dropped or changed (properties, indexes) from {@code before} to this snapshot. */
    public Set<Namespace> changedSince(Catalog before) {
        Set<Namespace> changed = new HashSet<>();
        before.colls.forEach((ns, old) -> {
            Coll now = colls.get(ns);
            if (now == null || !now.sameAs(old)) {
                changed.add(ns);
            }
        });
        colls.keySet().stream().filter(ns -> !before.colls.containsKey(ns)).forEach(changed::add);
        return changed;
    }

    /** This snapshot without one collection, published before its tables are dropped. */
    public Catalog without(Namespace ns) {
        Map<Namespace, Coll> copy = new HashMap<>(colls);
        copy.remove(ns);
        return new Catalog(dbs, Map.copyOf(copy));
    }

    /** This snapshot without one index of a collection, published before its table is dropped. */
    public Catalog withoutIndex(Namespace ns, String name) {
        Coll coll = colls.get(ns);
        Map<Namespace, Coll> copy = new HashMap<>(colls);
        copy.put(ns, new Coll(ns, coll.id(), coll.props(), coll.etag(),
                coll.indexes().stream().filter(i -> !i.spec().name().equals(name)).toList()));
        return new Catalog(dbs, Map.copyOf(copy));
    }

    /**
     * The {@code fields} column of an index: its fields as an array, or, when it has options,
     * {@code {"fields":[...],"sparse":true,"partialFilterExpression":{...},"expireAfterSeconds":n,"kind":"trigram"}}
     * (a text index: {@code "kind":"text","weights":{...},"default_language":..,"language_override":..})
     * (so indexes stored
     * before options existed read as they are, and no column is added).
     */
    public static byte[] encodeSpec(Json json, IndexSpec spec) {
        ArrayNode array = Json.NODES.arrayNode();
        for (IndexField f : spec.fields()) {
            array.addObject().put("path", f.path()).put("direction", f.direction());
        }
        if (!spec.selective() && spec.expireAfterSeconds().isEmpty() && spec.ordered()) {
            return json.bytes(array);
        }
        ObjectNode options = Json.NODES.objectNode();
        options.set("fields", array);
        if (spec.trigram()) {
            options.put("kind", "trigram");
        }
        if (spec.isText()) {
            options.put("kind", "text");
            ObjectNode weights = options.putObject("weights");
            spec.text().weights().forEach(weights::put);
            options.put("default_language", spec.text().defaultLanguage().mongoName());
            options.put("language_override", spec.text().languageOverride());
        }
        if (spec.sparse()) {
            options.put("sparse", true);
        }
        spec.partial().ifPresent(p -> options.set("partialFilterExpression", p.expression()));
        spec.expireAfterSeconds().ifPresent(s -> options.put("expireAfterSeconds", s));
        return json.bytes(options);
    }

    /** Options were checked against the limits when the index was created: read back, they compile unbounded. */
    private static final QueryLimits STORED = new QueryLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);

    private static IndexSpec decodeSpec(Json json, String name, byte[] bytes, boolean unique) {
        JsonNode stored = json.parse(bytes, "index fields");
        JsonNode array = stored.isArray() ? stored : stored.get("fields");
        List<IndexField> fields = new ArrayList<>();
        for (JsonNode f : array) {
            fields.add(new IndexField(f.get("path").asString(), f.get("direction").asInt()));
        }
        boolean sparse = stored.path("sparse").asBoolean(false);
        Optional<IndexSpec.PartialFilter> partial = stored.isObject() && stored.get("partialFilterExpression") instanceof ObjectNode p
                ? Optional.of(IndexSpec.PartialFilter.of(p, STORED)) : Optional.empty();
        String kindName = stored.path("kind").asString("");
        if (kindName.equals("text")) {
            java.util.Map<String, Integer> weights = new java.util.LinkedHashMap<>();
            stored.get("weights").properties().forEach(e -> weights.put(e.getKey(), e.getValue().asInt()));
            return IndexSpec.text(name, new TextIndex(weights, TextLanguage.named(stored.get("default_language").asString()),
                    stored.get("language_override").asString()));
        }
        IndexSpec.Kind kind = kindName.equals("trigram") ? IndexSpec.Kind.TRIGRAM : IndexSpec.Kind.ORDERED;
        Optional<Long> expire = stored.path("expireAfterSeconds").canConvertToLong()
                ? Optional.of(stored.get("expireAfterSeconds").longValue()) : Optional.empty();
        return new IndexSpec(name, List.copyOf(fields), unique, sparse, partial, expire, kind);
    }

    /** 412 unless {@code ifMatch} is absent or equals {@code current}. */
    public static void checkEtag(String current, Optional<String> ifMatch, String what) {
        if (ifMatch.isPresent() && (current == null || !current.equals(ifMatch.get()))) {
            throw WeftException.preconditionFailed("the _etag of " + what + " does not match If-Match");
        }
    }

    /** 400 for an index definition no store accepts. */
    public static void checkIndex(IndexSpec spec) {
        if (spec.name() == null || spec.name().isEmpty() || spec.name().length() > 128) {
            throw WeftException.badRequest("an index name must have 1 to 128 characters");
        }
        if (spec.name().equals(ID_INDEX)) {
            throw WeftException.badRequest("the index _id_ is implicit and cannot be defined");
        }
        if (spec.fields() == null || spec.fields().isEmpty() || spec.fields().size() > 32) {
            throw WeftException.badRequest("an index needs 1 to 32 fields");
        }
        for (IndexField f : spec.fields()) {
            if (spec.isText() && f.path().equals(TextIndex.WILDCARD)) {
                continue;
            }
            if (f.path().isEmpty() || f.path().startsWith("$") || Arrays.asList(f.path().split("\\.", -1)).contains("")) {
                throw WeftException.badRequest("invalid index field path: '" + f.path() + "'");
            }
        }
    }
}
