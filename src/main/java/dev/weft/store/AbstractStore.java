package dev.weft.store;

import dev.weft.core.Json;
import dev.weft.core.ObjectIds;
import dev.weft.core.WeftException;
import dev.weft.store.plan.QueryPlanner;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the SQLite and the PostgreSQL store share above their SQL: answering catalog reads from
 * the cached {@link Catalog}, the rules of catalog changes (404 for what is missing, 412 on an
 * If-Match mismatch, 409 for an index name reused with another definition, the implicit
 * {@code _id_} index) and the per-collection {@link #version}s that cached results are checked
 * against. It is public only because the stores live in sub-packages; everything a store
 * supplies or uses is protected, and callers see nothing beyond {@link Store}.
 *
 * <p>A store supplies its transactions and its SQL ({@code T} is its transaction handle):
 * {@link #ddl} runs a change in the store's catalog transaction, with that store's locking, and
 * hands it the catalog as that transaction sees it; the rules check against that catalog, then
 * call the store's hooks (one per table change) in the same transaction, so what is checked and
 * what is written commit or roll back together. The hooks' statements are the SQL engine's
 * ({@code sql.SqlStore}); what a store adds around them (hiding a table before it is dropped,
 * row locks, logging a drop), how a failure maps to a status and what a commit notifies remain
 * each store's own.
 *
 * <p>Versions only grow: {@link #bump} gives a collection a number no earlier version of any
 * collection had, so a cached result tagged with a version is stale exactly when the version
 * moved.
 */
public abstract class AbstractStore<T> implements Store {
    protected final Json json;
    private final ConcurrentHashMap<Namespace, Long> versions = new ConcurrentHashMap<>();
    private final AtomicLong versionSeq = new AtomicLong();

    protected AbstractStore(Json json) {
        this.json = json;
    }

    // --- what a store supplies ---------------------------------------------------------------

    /** The cached catalog. */
    protected abstract Catalog catalog();

    /**
     * The cached catalog for a read that needs what {@code holds} checks; a store whose cache may
     * lag another node's change reloads it first when it does not hold.
     */
    protected Catalog catalog(Predicate<Catalog> holds) {
        return catalog();
    }

    /** A catalog change, run by {@link #ddl} with the catalog its transaction sees. */
    protected interface Ddl<T, R> {
        R run(T tx, Catalog current) throws SQLException;
    }

    /** Runs {@code fn} as one catalog change (committed, or rolled back when it throws) and returns its result. */
    protected abstract <R> R ddl(Ddl<T, R> fn);

    /** Creates or replaces the row of a database. */
    protected abstract void saveDatabase(T tx, String db, byte[] props, String etag) throws SQLException;

    /** Deletes the row of a database (its collections are dropped first). */
    protected abstract void deleteDatabase(T tx, String db) throws SQLException;

    /** Replaces the properties of an existing collection. */
    protected abstract void updateCollection(T tx, Catalog.Coll old, byte[] props, String etag) throws SQLException;

    /** Adds the row and the document table of a new collection. */
    protected abstract void insertCollection(T tx, Namespace ns, byte[] props, String etag) throws SQLException;

    /** Drops a collection's tables and rows. */
    protected abstract void dropTables(T tx, Catalog.Coll coll) throws SQLException;

    /** Adds a new index's row and table and fills it from every document (409 for a unique index with duplicates). */
    protected abstract void addIndex(T tx, Catalog.Coll coll, IndexSpec spec) throws SQLException;

    /** Drops an index's table and row. */
    protected abstract void removeIndex(T tx, Catalog.Coll coll, Catalog.Index index) throws SQLException;

    // --- catalog -----------------------------------------------------------------------------

    @Override
    public List<String> databases() {
        return List.copyOf(catalog().dbs().keySet());
    }

    @Override
    public Optional<Metadata> database(String db) {
        Catalog.Db d = catalog().dbs().get(db);
        return d == null ? Optional.empty() : Optional.of(new Metadata(props(d.props()), d.etag()));
    }

    @Override
    public boolean putDatabase(String db, ObjectNode properties, Optional<String> ifMatch) {
        Namespace.checkName(db, "database");
        byte[] props = json.bytes(properties);
        return ddl((tx, cat) -> {
            Catalog.Db old = cat.dbs().get(db);
            Catalog.checkEtag(old == null ? null : old.etag(), ifMatch, "database " + db);
            saveDatabase(tx, db, props, ObjectIds.next());
            return old == null;
        });
    }

    @Override
    public void dropDatabase(String db, Optional<String> ifMatch) {
        ddl((tx, cat) -> {
            Catalog.Db old = cat.dbs().get(db);
            if (old == null) {
                throw WeftException.notFound("database " + db + " does not exist");
            }
            Catalog.checkEtag(old.etag(), ifMatch, "database " + db);
            for (Catalog.Coll coll : cat.colls().values()) {
                if (coll.ns().db().equals(db)) {
                    dropTables(tx, coll);
                }
            }
            deleteDatabase(tx, db);
            return null;
        });
    }

    @Override
    public List<String> collections(String db) {
        Catalog cat = catalog(c -> c.dbs().containsKey(db));
        if (!cat.dbs().containsKey(db)) {
            throw WeftException.notFound("database " + db + " does not exist");
        }
        return cat.colls().keySet().stream().filter(ns -> ns.db().equals(db)).map(Namespace::coll).sorted().toList();
    }

    @Override
    public Optional<Metadata> collection(Namespace ns) {
        Catalog.Coll c = catalog(cat -> cat.colls().containsKey(ns)).colls().get(ns);
        return c == null ? Optional.empty() : Optional.of(new Metadata(props(c.props()), c.etag()));
    }

    @Override
    public boolean putCollection(Namespace ns, ObjectNode properties, Optional<String> ifMatch) {
        byte[] props = json.bytes(properties);
        return ddl((tx, cat) -> {
            if (!cat.dbs().containsKey(ns.db())) {
                throw WeftException.notFound("database " + ns.db() + " does not exist");
            }
            Catalog.Coll old = cat.colls().get(ns);
            Catalog.checkEtag(old == null ? null : old.etag(), ifMatch, "collection " + ns);
            if (old != null) {
                updateCollection(tx, old, props, ObjectIds.next());
                return false;
            }
            insertCollection(tx, ns, props, ObjectIds.next());
            return true;
        });
    }

    @Override
    public void dropCollection(Namespace ns, Optional<String> ifMatch) {
        ddl((tx, cat) -> {
            Catalog.Coll coll = requireColl(cat, ns);
            Catalog.checkEtag(coll.etag(), ifMatch, "collection " + ns);
            dropTables(tx, coll);
            return null;
        });
    }

    private ObjectNode props(byte[] bytes) {
        return json.parseObject(bytes, "stored properties");
    }

    // --- indexes -----------------------------------------------------------------------------

    @Override
    public List<IndexSpec> indexes(Namespace ns) {
        List<IndexSpec> specs = new ArrayList<>();
        specs.add(new IndexSpec(Catalog.ID_INDEX, QueryPlanner.ID_FIELDS, true));
        requireColl(catalog(c -> c.colls().containsKey(ns)), ns).indexes().forEach(i -> specs.add(i.spec()));
        return specs;
    }

    /** Creating an index that exists with the same definition does nothing; with another, 409. */
    @Override
    public void createIndex(Namespace ns, IndexSpec spec) {
        Catalog.checkIndex(spec);
        ddl((tx, cat) -> {
            Catalog.Coll coll = requireColl(cat, ns);
            Optional<Catalog.Index> existing = coll.index(spec.name());
            if (existing.isPresent()) {
                if (existing.get().spec().equals(spec)) {
                    return null;
                }
                throw WeftException.conflict("an index named " + spec.name() + " already exists with another definition");
            }
            Optional<Catalog.Index> text = coll.indexes().stream().filter(i -> i.spec().isText()).findFirst();
            if (spec.isText() && text.isPresent()) {
                throw WeftException.conflict("only one text index per collection allowed, found existing text index \""
                        + text.get().spec().name() + "\"");
            }
            addIndex(tx, coll, spec);
            return null;
        });
    }

    @Override
    public void dropIndex(Namespace ns, String name) {
        if (name.equals(Catalog.ID_INDEX)) {
            throw WeftException.badRequest("the index _id_ cannot be dropped");
        }
        ddl((tx, cat) -> {
            Catalog.Coll coll = requireColl(cat, ns);
            Catalog.Index index = coll.index(name)
                    .orElseThrow(() -> WeftException.notFound("collection " + ns + " has no index named " + name));
            removeIndex(tx, coll, index);
            return null;
        });
    }

    // --- versions and helpers ------------------------------------------------------------------

    @Override
    public long version(Namespace ns) {
        return versions.getOrDefault(ns, 0L);
    }

    /**
     * After a catalog change: a new version for each collection it created, dropped or changed,
     * and for no other. Bumping every collection would also bump the users collection, and
     * every remembered login with it: each DDL cost every user a password hash.
     */
    protected final void bumpChanged(Catalog before, Catalog after) {
        after.changedSince(before).forEach(this::bump);
    }

    /** Gives the collection a new version: results cached under an older one are stale. */
    protected final void bump(Namespace ns) {
        versions.put(ns, versionSeq.incrementAndGet());
    }

    /** The collection, or 404. */
    protected static Catalog.Coll requireColl(Catalog catalog, Namespace ns) {
        Catalog.Coll coll = catalog.colls().get(ns);
        if (coll == null) {
            throw WeftException.notFound("collection " + ns + " does not exist");
        }
        return coll;
    }
}
