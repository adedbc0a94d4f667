package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.query.IndexField;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * An immutable snapshot of the catalog tables: databases, collections (each with a numeric id
 * naming its document table {@code d<id>}) and indexes (table {@code i<id>}). The store publishes
 * a new snapshot after every catalog change commits; readers plan against the snapshot they took.
 * Ids come from AUTOINCREMENT columns, so a dropped table's name is never reused.
 */
record Catalog(Map<String, Db> dbs, Map<Namespace, Coll> colls) {

    static final String ID_INDEX = "_id_";

    record Db(String name, byte[] props, String etag) {}

    record Coll(Namespace ns, long id, byte[] props, String etag, List<Index> indexes) {
        String table() {
            return "d" + id;
        }

        Optional<Index> index(String name) {
            return indexes.stream().filter(i -> i.spec().name().equals(name)).findFirst();
        }
    }

    /**
     * An index definition. {@code multikey} only ever goes from false to true; the writer sets it
     * before the transaction that stores the first array commits, so no reader can see such a
     * document while still trusting the index's order.
     */
    static final class Index {
        private final long id;
        private final IndexSpec spec;
        private volatile boolean multikey;

        Index(long id, IndexSpec spec, boolean multikey) {
            this.id = id;
            this.spec = spec;
            this.multikey = multikey;
        }

        long id() {
            return id;
        }

        IndexSpec spec() {
            return spec;
        }

        List<IndexField> fields() {
            return spec.fields();
        }

        boolean multikey() {
            return multikey;
        }

        void markMultikey() {
            multikey = true;
        }

        String table() {
            return "i" + id;
        }
    }

    static final List<String> SCHEMA = List.of(
            "CREATE TABLE IF NOT EXISTS weft_dbs(name TEXT PRIMARY KEY, props BLOB NOT NULL, etag TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS weft_colls(id INTEGER PRIMARY KEY AUTOINCREMENT, db TEXT NOT NULL,"
                    + " name TEXT NOT NULL, props BLOB NOT NULL, etag TEXT NOT NULL, UNIQUE(db, name))",
            "CREATE TABLE IF NOT EXISTS weft_indexes(id INTEGER PRIMARY KEY AUTOINCREMENT, coll INTEGER NOT NULL,"
                    + " name TEXT NOT NULL, fields BLOB NOT NULL, uniq INTEGER NOT NULL, multikey INTEGER NOT NULL,"
                    + " UNIQUE(coll, name))");

    static Catalog load(Sql sql, Json json) throws SQLException {
        Map<String, Db> dbs = new TreeMap<>();
        try (ResultSet rs = sql.prepare("SELECT name, props, etag FROM weft_dbs").executeQuery()) {
            while (rs.next()) {
                dbs.put(rs.getString(1), new Db(rs.getString(1), rs.getBytes(2), rs.getString(3)));
            }
        }
        Map<Long, List<Index>> indexes = new TreeMap<>();
        try (ResultSet rs = sql.prepare("SELECT id, coll, name, fields, uniq, multikey FROM weft_indexes ORDER BY id")
                .executeQuery()) {
            while (rs.next()) {
                IndexSpec spec = new IndexSpec(rs.getString(3), decodeFields(json, rs.getBytes(4)), rs.getInt(5) != 0);
                indexes.computeIfAbsent(rs.getLong(2), k -> new ArrayList<>())
                        .add(new Index(rs.getLong(1), spec, rs.getInt(6) != 0));
            }
        }
        Map<Namespace, Coll> colls = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        try (ResultSet rs = sql.prepare("SELECT id, db, name, props, etag FROM weft_colls").executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                Namespace ns = new Namespace(rs.getString(2), rs.getString(3));
                colls.put(ns, new Coll(ns, id, rs.getBytes(4), rs.getString(5),
                        List.copyOf(indexes.getOrDefault(id, List.of()))));
            }
        }
        return new Catalog(Collections.unmodifiableMap(dbs), Collections.unmodifiableMap(colls));
    }

    /** This snapshot without one collection, published before its tables are dropped. */
    Catalog without(Namespace ns) {
        Map<Namespace, Coll> copy = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        copy.putAll(colls);
        copy.remove(ns);
        return new Catalog(dbs, Collections.unmodifiableMap(copy));
    }

    /** This snapshot without one index of a collection, published before its table is dropped. */
    Catalog withoutIndex(Namespace ns, String name) {
        Coll coll = colls.get(ns);
        Map<Namespace, Coll> copy = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        copy.putAll(colls);
        copy.put(ns, new Coll(ns, coll.id(), coll.props(), coll.etag(),
                coll.indexes().stream().filter(i -> !i.spec().name().equals(name)).toList()));
        return new Catalog(dbs, Collections.unmodifiableMap(copy));
    }

    static byte[] encodeFields(Json json, List<IndexField> fields) {
        ArrayNode array = Json.NODES.arrayNode();
        for (IndexField f : fields) {
            array.addObject().put("path", f.path()).put("direction", f.direction());
        }
        return json.bytes(array);
    }

    private static List<IndexField> decodeFields(Json json, byte[] bytes) {
        List<IndexField> fields = new ArrayList<>();
        for (JsonNode f : json.parse(bytes, "index fields")) {
            fields.add(new IndexField(f.get("path").asString(), f.get("direction").asInt()));
        }
        return List.copyOf(fields);
    }

    static void insertIndexRow(Sql sql, Json json, long coll, IndexSpec spec, boolean multikey) throws SQLException {
        PreparedStatement ps = sql.prepare(
                "INSERT INTO weft_indexes(coll, name, fields, uniq, multikey) VALUES (?, ?, ?, ?, ?)");
        ps.setLong(1, coll);
        ps.setString(2, spec.name());
        ps.setBytes(3, encodeFields(json, spec.fields()));
        ps.setInt(4, spec.unique() ? 1 : 0);
        ps.setInt(5, multikey ? 1 : 0);
        ps.executeUpdate();
    }
}
