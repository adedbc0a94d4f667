package dev.weft.store.sql;

import dev.weft.core.Json;
import dev.weft.store.AbstractStore;
import dev.weft.store.Catalog;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.plan.QueryPlanner;
import java.sql.SQLException;

/**
 * A store whose tables the {@link SqlEngine} reads and writes: the catalog changes of
 * {@link AbstractStore} done by the engine's statements, in the transaction the store's
 * {@link #ddl} opens. A store overrides a hook only to add what it alone needs around the
 * engine's statements (hiding a table from readers before dropping it, a generation bump that
 * makes concurrent writers re-plan, logging a drop), calling {@code super}.
 */
public abstract class SqlStore extends AbstractStore<SqlConnection> {
    protected final SqlEngine engine;

    protected SqlStore(Json json, SqlEngine engine) {
        super(json);
        this.engine = engine;
    }

    @Override
    protected void saveDatabase(SqlConnection sql, String db, byte[] props, String etag) throws SQLException {
        engine.saveDatabase(sql, db, props, etag);
    }

    @Override
    protected void deleteDatabase(SqlConnection sql, String db) throws SQLException {
        engine.deleteDatabase(sql, db);
    }

    @Override
    protected void updateCollection(SqlConnection sql, Catalog.Coll old, byte[] props, String etag) throws SQLException {
        engine.updateCollection(sql, old, props, etag);
    }

    @Override
    protected void insertCollection(SqlConnection sql, Namespace ns, byte[] props, String etag) throws SQLException {
        engine.insertCollection(sql, ns, props, etag);
    }

    @Override
    protected void dropTables(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        engine.dropTables(sql, coll);
    }

    @Override
    protected void addIndex(SqlConnection sql, Catalog.Coll coll, IndexSpec spec) throws SQLException {
        engine.addIndex(sql, coll, spec);
    }

    @Override
    protected void removeIndex(SqlConnection sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        engine.removeIndex(sql, coll, index);
    }

    @Override
    public WriteOp prepare(WriteOp op) {
        return engine.prepare(op, catalog().colls().get(op.ns()));
    }

    /** The plan of the last query (for tests: which source answered). */
    public QueryPlanner.Plan<Catalog.Index> lastPlan() {
        return engine.lastPlan();
    }
}
